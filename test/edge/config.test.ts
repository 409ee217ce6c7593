import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  DEFAULT_EDGE_INPUTS,
  EdgeInputError,
  edgeInputsFromEnv,
  locationsOf,
  renderNginxConf,
} from '../../edge/generate.ts';
import { EDGE_TABLE } from '../../edge/routes.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const run = promisify(execFile);

/** edge/nginx.conf is generated from the edge table and must never drift from it. */
describe('edge: nginx.conf generated from the edge table', () => {
  const conf = renderNginxConf(DEFAULT_EDGE_INPUTS);

  it('the committed edge/nginx.conf is exactly the generator output (run `npm run edge:config`)', () => {
    const committed = readFileSync(path.join(PROJECT_ROOT, 'edge', 'nginx.conf'), 'utf8');
    expect(committed === conf, 'edge/nginx.conf differs from the table: run `npm run edge:config`').to.equal(true);
  });

  it('uses only exact and ^~ prefix locations, so no regular expression can win over a prefix', () => {
    const locations = [...conf.matchAll(/^\s*location\s+(\S+)\s+(\S+)/gm)].map((m) => [m[1], m[2]]);
    expect(locations.length).to.be.greaterThan(40);
    for (const [modifier, target] of locations) {
      expect(['=', '^~'].includes(modifier) || modifier.startsWith('@'), `location ${modifier} ${target}`).to.equal(
        true,
      );
    }
    expect(conf).to.not.match(/location\s+~/);
  });

  it('renders every path of the table', () => {
    for (const row of EDGE_TABLE) {
      for (const p of row.paths) for (const loc of locationsOf(p)) expect(conf).to.contain(`location ${loc} `);
    }
  });

  it('reads its inputs from the environment and names an invalid one', () => {
    const inputs = edgeInputsFromEnv({ WS_MAX_BODY: '250m', EDGE_CORE_API: 'core-api:3003', EDGE_LISTEN: '80' });
    expect(inputs.upstreams.gateway).to.equal(DEFAULT_EDGE_INPUTS.upstreams.gateway);
    const custom = renderNginxConf(inputs);
    expect(custom).to.contain('client_max_body_size 250m;');
    expect(custom).to.contain('upstream core_api { server core-api:3003;');
    expect(custom).to.contain('listen 80;');
    expect(custom).to.not.contain('_temp_path');

    const bad = (env: NodeJS.ProcessEnv) => () => renderNginxConf(edgeInputsFromEnv(env));
    expect(bad({ WS_MAX_BODY: '100 MB' })).to.throw(EdgeInputError, 'WS_MAX_BODY');
    expect(bad({ WS_MAX_BODY: '1m; include /etc/passwd' })).to.throw(EdgeInputError, 'WS_MAX_BODY');
    expect(bad({ EDGE_CORE_API: 'core-api' })).to.throw(EdgeInputError, 'EDGE_CORE_API');
    expect(bad({ EDGE_RUNTIME_DIR: 'relative/dir' })).to.throw(EdgeInputError, 'EDGE_RUNTIME_DIR');
    expect(renderNginxConf(edgeInputsFromEnv({ EDGE_RUNTIME_DIR: '/tmp/edge' }))).to.contain(
      'pid "/tmp/edge/nginx.pid";',
    );
  });

  it('with EDGE_RESOLVER, re-resolves each upstream name so it lists every replica; retries idempotent requests', () => {
    const conf = renderNginxConf(edgeInputsFromEnv({ EDGE_RESOLVER: '127.0.0.11', EDGE_CORE_API: 'core-api:3003' }));
    expect(conf).to.contain('resolver 127.0.0.11 valid=10s ipv6=off;');
    expect(conf).to.contain('upstream core_api { zone core_api 64k; server core-api:3003 resolve; keepalive 32; }');
    expect(conf).to.contain('upstream editor { zone editor 64k; server 127.0.0.1:3006; keepalive 8; }');
    expect(conf).to.contain('proxy_next_upstream error timeout http_502 http_503;');
    expect(conf).to.contain('proxy_next_upstream_tries 3;');
    // nginx retries POST, PATCH and LOCK only with `non_idempotent`: never asked for.
    expect(conf).to.not.contain('non_idempotent');
    expect(renderNginxConf(DEFAULT_EDGE_INPUTS)).to.not.match(/ resolve;|^\s*resolver /m);
    expect(() => renderNginxConf(edgeInputsFromEnv({ EDGE_RESOLVER: '1.1.1.1; include x' }))).to.throw(
      EdgeInputError,
      'EDGE_RESOLVER',
    );
  });

  it('lists several replicas of an upstream, comma-separated, one server line each', () => {
    const conf = renderNginxConf(edgeInputsFromEnv({ EDGE_CORE_API: '127.0.0.1:3003, 127.0.0.1:3013,127.0.0.1:3023' }));
    expect(conf).to.contain(
      'upstream core_api { server 127.0.0.1:3003; server 127.0.0.1:3013; server 127.0.0.1:3023; keepalive 32; }',
    );
    const named = renderNginxConf(
      edgeInputsFromEnv({ EDGE_RESOLVER: '127.0.0.11', EDGE_GATEWAY: 'gateway-a:3001,10.0.0.7:3001' }),
    );
    expect(named).to.contain(
      'upstream gateway { zone gateway 64k; server gateway-a:3001 resolve; server 10.0.0.7:3001;',
    );
    for (const value of ['127.0.0.1:3003,', '127.0.0.1:3003,core-api', '127.0.0.1:3003;127.0.0.1:3013'])
      expect(() => renderNginxConf(edgeInputsFromEnv({ EDGE_CORE_API: value })), value).to.throw(
        EdgeInputError,
        'EDGE_CORE_API',
      );
  });

  it('with EDGE_REAL_IP_FROM, takes the client address from the X-Forwarded-For of those proxies only', () => {
    const conf = renderNginxConf(edgeInputsFromEnv({ EDGE_REAL_IP_FROM: '10.0.0.0/8, fd00::/8' }));
    expect(conf).to.contain(
      'set_real_ip_from 10.0.0.0/8;\n  set_real_ip_from fd00::/8;\n  real_ip_header X-Forwarded-For;',
    );
    expect(renderNginxConf(DEFAULT_EDGE_INPUTS)).to.not.contain('set_real_ip_from');
    expect(() => renderNginxConf(edgeInputsFromEnv({ EDGE_REAL_IP_FROM: '0.0.0.0/0; x' }))).to.throw(
      EdgeInputError,
      'EDGE_REAL_IP_FROM',
    );
  });

  it('refuses a table that names a location twice', () => {
    const twice = [...EDGE_TABLE, { paths: ['/auth'], upstream: 'gateway' as const, note: 'clash' }];
    expect(() => renderNginxConf(DEFAULT_EDGE_INPUTS, twice)).to.throw('location "= /auth" appears twice');
  });

  it('npm run edge:config prints the configuration for the given inputs', async () => {
    const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(EDGE_|WS_MAX_BODY$)/.test(name)));
    const { stdout } = await run(
      'node',
      ['--import', 'tsx', path.join(PROJECT_ROOT, 'scripts', 'edge-config.ts'), '--stdout'],
      {
        env: { ...env, WS_MAX_BODY: '1g' },
      },
    );
    expect(stdout).to.equal(renderNginxConf({ ...DEFAULT_EDGE_INPUTS, maxBody: '1g' }));
  });
});
