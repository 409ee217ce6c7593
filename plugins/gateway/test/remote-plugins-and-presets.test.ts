import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../../../kernel/clock.ts';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { startTestKernel } from '../../../test/helpers/kernel.ts';
import { startFailure, testEnv } from '../../../test/kernel/boot.ts';
import weatherWidget from '../examples/weather-widget/index.ts';
import { startGatewayKernel } from './helpers.ts';
import { startUpstream, type Upstream } from '../../../test/helpers/upstream.ts';

const exampleFolder = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'examples', 'weather-widget');

describe('gateway remote plugins (/api/remote/<id>/) and vendor presets', () => {
  let up: Upstream;
  before(async () => {
    up = await startUpstream();
  });
  after(() => up.close());

  describe('the example remote plugin weather-widget', () => {
    let g: Awaited<ReturnType<typeof startGatewayKernel>>;
    const clock = new ManualClock();
    before(async () => {
      g = await startGatewayKernel({ extraPlugins: [weatherWidget], clock });
      up.handle((req, res) => {
        const url = new URL(req.url, 'http://x');
        res.setHeader('content-type', 'application/json');
        if (url.searchParams.get('q') === 'Atlantis') {
          res.statusCode = 404;
          return void res.end('{"cod":"404","message":"city not found"}');
        }
        if (url.searchParams.get('q') === 'Babel') return void res.end(`{"name":"${'x'.repeat(100_000)}"}`);
        res.end(
          JSON.stringify({
            name: url.searchParams.get('q'),
            sys: { country: 'DE' },
            main: { temp: 21.5, humidity: 40 },
            weather: [{ description: 'clear sky' }],
            dt: 1_700_000_000,
          }),
        );
      });
    });
    after(() => g.t.close());

    it('is mounted under /api/remote/weather-widget/ and listed by GET /api/v1/gateway/plugins', async () => {
      const plugins = await g.call('GET', '/api/v1/gateway/plugins', g.manager);
      expect(plugins.statusCode).to.equal(200);
      expect(plugins.json().items).to.deep.equal([
        {
          id: 'weather-widget',
          description: 'Current weather of a city for published sites, through the OpenWeather endpoint',
          version: '1.0.0',
          prefix: '/api/remote/weather-widget',
          routes: [{ method: 'GET', url: '/api/remote/weather-widget/current' }],
        },
      ]);
    });

    it('answers through a preset endpoint with the key added by the gateway, cached per city', async () => {
      const before = await g.call('GET', '/api/remote/weather-widget/current?city=Berlin', null);
      expect(before.statusCode).to.equal(503);
      expect(before.json().code).to.equal('WEATHER_NOT_CONFIGURED');
      const ep = await g.call('POST', '/api/v1/gateway/endpoints', g.manager, {
        name: 'openweathermap',
        preset: 'openweathermap',
        baseUrl: up.url,
        auth: { type: 'apiKeyQuery', key: 'owm-key' },
      });
      expect(ep.statusCode).to.equal(201);
      up.requests.length = 0;
      const res = await g.call('GET', '/api/remote/weather-widget/current?city=Berlin', null);
      expect(res.statusCode).to.equal(200);
      expect(res.json()).to.deep.equal({
        city: 'Berlin',
        country: 'DE',
        temperatureC: 21.5,
        description: 'clear sky',
        humidity: 40,
        observedAt: '2023-11-14T22:13:20.000Z',
      });
      const seen = new URL(up.requests[0]!.url, 'http://x');
      expect(seen.pathname).to.equal('/data/2.5/weather');
      expect(Object.fromEntries(seen.searchParams)).to.deep.equal({ q: 'Berlin', units: 'metric', appid: 'owm-key' });
      expect(res.body).not.to.contain('owm-key');
      await g.call('GET', '/api/remote/weather-widget/current?city=berlin', null);
      expect(up.requests).to.have.length(1);
      clock.advance(301_000);
      await g.call('GET', '/api/remote/weather-widget/current?city=Berlin', null);
      expect(up.requests).to.have.length(2);
      expect((await g.call('GET', '/api/remote/weather-widget/current?city=Atlantis', null)).statusCode).to.equal(404);
      expect((await g.call('GET', '/api/remote/weather-widget/current', null)).statusCode).to.equal(400);
    });

    it('makes one upstream call for visitors asking for the same city at once, and keeps no large answer', async () => {
      clock.advance(301_000); // nothing cached any more
      up.requests.length = 0;
      const answers = await Promise.all(
        Array.from({ length: 10 }, () => g.call('GET', '/api/remote/weather-widget/current?city=Hamburg', null)),
      );
      expect(answers.map((a) => a.statusCode)).to.deep.equal(Array(10).fill(200));
      expect(up.requests).to.have.length(1);
      const large = await g.call('GET', '/api/remote/weather-widget/current?city=Babel', null);
      expect(large.statusCode).to.equal(502);
      expect(large.json().code).to.equal('UPSTREAM_TOO_LARGE');
    });
  });

  it('finds a remote plugin in a CMS_PLUGIN_PATH folder and mounts it in the gateway service', async () => {
    const t = await startTestKernel({ service: 'gateway', env: { CMS_PLUGIN_PATH: exampleFolder } });
    try {
      expect(t.kernel.plugins.map((p) => p.id)).to.include('weather-widget');
      const admin = await t.admin();
      const list = await t.inject({ method: 'GET', url: '/api/v1/gateway/plugins', headers: { cookie: admin.cookie } });
      expect(list.json().items.map((p: { id: string }) => p.id)).to.deep.equal(['weather-widget']);
    } finally {
      await t.close();
    }
  });

  describe('preset files', () => {
    const root = path.join(PROJECT_ROOT, '.test-data', `presets-${randomBytes(4).toString('hex')}`);
    after(() => rmSync(root, { recursive: true, force: true }));

    const withPreset = (name: string, content: string) => {
      const folder = path.join(root, name);
      mkdirSync(path.join(folder, 'presets'), { recursive: true });
      writeFileSync(path.join(folder, 'presets', 'vendor.json'), content);
      return folder;
    };

    it('stops start-up with a message naming the file and the problem', async () => {
      const cases: [string, string][] = [
        ['{ "baseUrl": ', 'not valid JSON'],
        ['{ "name": "No URL" }', 'baseUrl'],
        ['{ "baseUrl": "https://api.example.com", "auth": { "type": "magic" } }', '/auth'],
        [
          '{ "baseUrl": "https://api.example.com", "routes": [{ "method": "GET", "path": "/a/{b" }] }',
          '/routes/0/path',
        ],
        [
          '{ "baseUrl": "https://api.example.com", "routes": [{ "method": "FETCH", "path": "/a" }] }',
          '/routes/0/method',
        ],
        [
          '{ "baseUrl": "https://api.example.com", "auth": { "type": "bearer", "token": "secret-in-a-file" } }',
          '/auth',
        ],
        ['{ "id": "stripe", "baseUrl": "https://api.example.com" }', 'already used'],
      ];
      for (const [i, [content, why]] of cases.entries()) {
        const folder = withPreset(`case-${i}`, content);
        const message = await startFailure({ service: 'gateway', env: testEnv({ CMS_PLUGIN_PATH: folder }) });
        expect(message, content)
          .to.contain(path.join(folder, 'presets', 'vendor.json'))
          .and.to.contain(why);
      }
    });

    it('loads a valid preset from a CMS_PLUGIN_PATH folder beside the shipped ones', async () => {
      const folder = withPreset(
        'ok',
        JSON.stringify({
          name: 'Acme CRM',
          baseUrl: 'https://api.acme.example',
          auth: { type: 'apiKeyHeader', headerName: 'X-Acme-Key' },
          routes: [{ method: 'GET', path: '/contacts/{id}' }],
        }),
      );
      const g = await startGatewayKernel({ env: { CMS_PLUGIN_PATH: folder } });
      try {
        const items = (await g.call('GET', '/api/v1/gateway/presets', g.manager)).json().items;
        const acme = items.find((p: { id: string }) => p.id === 'vendor');
        expect(acme).to.deep.include({
          name: 'Acme CRM',
          baseUrl: 'https://api.acme.example',
          auth: { type: 'apiKeyHeader', headerName: 'X-Acme-Key' },
        });
        expect(items.map((p: { id: string }) => p.id)).to.include('stripe');
      } finally {
        await g.t.close();
      }
    });
  });
});
