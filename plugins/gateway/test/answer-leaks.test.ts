import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import type { Endpoint } from '../model.ts';
import type { GatewayServices } from '../services/index.ts';
import { startGatewayKernel } from './helpers.ts';

const SECRET = 'upstream-api-key-that-never-leaves-0123';

/**
 * The answer schemas are the filter: even when the endpoint handed to the answer carries its sealed
 * credential and the credential in clear among the stored settings, no endpoint answer shows them
 * (the credential only as `{ set: true }`).
 */
describe('gateway: no endpoint answer carries a credential, sealed or in clear', function () {
  this.timeout(60_000);
  let g: Awaited<ReturnType<typeof startGatewayKernel>>;
  const sealed: string[] = [];
  before(async () => {
    g = await startGatewayKernel();
    const { endpoints } = g.t.services<GatewayServices>('gateway');
    // A careless store: the credential travels in the non-secret settings.
    const careless = (e: Endpoint): Endpoint => {
      if (e.sealedSecret) sealed.push(e.sealedSecret);
      return { ...e, authConfig: { ...e.authConfig, apiKey: SECRET, auth_secret: e.sealedSecret ?? '' } };
    };
    for (const name of ['get', 'create', 'update'] as const) {
      const original = endpoints[name].bind(endpoints) as (...args: unknown[]) => Promise<Endpoint>;
      (endpoints as unknown as Record<string, unknown>)[name] = async (...args: unknown[]) =>
        careless(await original(...args));
    }
    const list = endpoints.list.bind(endpoints);
    endpoints.list = async (...args) => (await list(...args)).map(careless);
  });
  after(() => g?.t.close());

  it('create, list, read and patch', async () => {
    const body = {
      baseUrl: 'https://api.example.test',
      auth: { type: 'apiKeyHeader', headerName: 'X-Key', key: SECRET },
    };
    const created = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
      name: `leaks-${Date.now()}`,
      ...body,
    });
    expect(created.statusCode, created.body).to.equal(201);
    const id = created.json().id;
    const answers = [
      ['POST /api/v1/gateway/endpoints', created],
      ['GET /api/v1/gateway/endpoints', await g.call('GET', '/api/v1/gateway/endpoints', g.manager)],
      ['GET /api/v1/gateway/endpoints/:id', await g.call('GET', `/api/v1/gateway/endpoints/${id}`, g.manager)],
      [
        'PATCH /api/v1/gateway/endpoints/:id',
        await g.call('PATCH', `/api/v1/gateway/endpoints/${id}`, g.manager, { timeoutMs: 4000 }),
      ],
    ] as const;
    expect(sealed).to.not.be.empty;
    for (const [what, res] of answers) {
      expect(res.statusCode, `${what}: ${res.body}`).to.be.lessThan(300);
      expectNoLeaks(res, { keys: ['apiKey', 'auth_secret', 'sealedSecret'], values: [SECRET, ...sealed] });
    }
    expect(answers[2][1].json().auth).to.deep.equal({ type: 'apiKeyHeader', headerName: 'X-Key', key: { set: true } });
  });
});
