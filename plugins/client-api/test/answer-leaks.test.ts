import { expect } from 'chai';
import { expectNoLeaks } from '../../../test/helpers/answer-leaks.ts';
import type { ClientApiServices } from '../services/index.ts';
import { startClientKernel, type ClientKernel } from './helpers.ts';

describe('client-api: no internal column reaches a client', () => {
  let k: ClientKernel;
  before(async () => {
    k = await startClientKernel();
  });
  after(() => k?.close());

  it('answers the admin and the client routes without a key, its hash or another internal column', async () => {
    const className = await k.createClass([{ name: 'title', type: 'text' }]);
    const objectId = await k.createObject(className, { title: 'Published' }, true);
    const { id, key } = await k.createClient({ scopes: [`data:read:${className}`, `data:write:${className}`] });
    const [row] = await k.t.db('api_client_keys').where({ client_id: id });
    const answers = [
      await k.asAdmin('GET', '/api/v1/gateway/clients'),
      await k.asAdmin('GET', `/api/v1/gateway/clients/${id}`),
      await k.asAdmin('PATCH', `/api/v1/gateway/clients/${id}`, { name: 'renamed' }),
      await k.asClient(key, 'GET', '/client/v1/me'),
      await k.asClient(key, 'GET', `/client/v1/data/${className}`),
      await k.asClient(key, 'GET', `/client/v1/data/${className}/${objectId}`),
      await k.asClient(key, 'POST', `/client/v1/data/${className}`, { payload: { attributes: { title: 'Mine' } } }),
    ];
    for (const res of answers) expect(res.statusCode, res.body).to.be.oneOf([200, 201]);
    expectNoLeaks(answers, { values: [key, row.key_hash] });
  });

  it('answers a client by its schema, whatever else the service returns', async () => {
    const { id } = await k.createClient({ scopes: [] });
    const admin = k.t.services<ClientApiServices>('client-api').admin;
    const get = admin.get.bind(admin);
    // As if the store started returning the key and secret columns with the client.
    admin.get = (async (clientId: string) => ({
      ...(await get(clientId)),
      key_hash: 'raw-key-hash',
      client_secret: 'raw-client-secret',
    })) as typeof get;
    try {
      const res = await k.asAdmin('GET', `/api/v1/gateway/clients/${id}`);
      expect(res.statusCode, res.body).to.equal(200);
      expectNoLeaks(res, { values: ['raw-key-hash', 'raw-client-secret'] });
    } finally {
      admin.get = get;
    }
  });
});
