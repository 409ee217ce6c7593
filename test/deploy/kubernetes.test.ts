import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';
import { edgeInputsFromEnv, renderNginxConf } from '../../edge/generate.ts';
import { SERVICE_NAMES, SERVICE_PORTS } from '../../kernel/config.ts';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

/**
 * deploy/kubernetes/ without a cluster: every object against the Kubernetes schemas (kubernetes-models,
 * ajv validators of the OpenAPI definitions), then what the schemas cannot see: selectors that match
 * pod labels, ports that exist, probes on the health routes, a budget and an autoscaler per Deployment,
 * the configuration against the README table, the edge configuration against the Services.
 */
const DIR = path.join(PROJECT_ROOT, 'deploy', 'kubernetes');

interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  // biome-ignore lint/suspicious/noExplicitAny: manifests are checked field by field below
  spec?: any;
  data?: Record<string, string>;
}

const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
const objects: { file: string; object: K8sObject }[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8')).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`${file}: ${doc.errors[0].message}`);
    return { file, object: doc.toJS() as K8sObject };
  }),
);
const ofKind = (kind: string) => objects.map((o) => o.object).filter((o) => o.kind === kind);
const named = (kind: string, name: string) => ofKind(kind).find((o) => o.metadata.name === name);

/** The model module of each kind used, by apiVersion/kind. */
const MODELS: Record<string, string> = {
  'v1/Namespace': 'kubernetes-models/v1/Namespace',
  'v1/ConfigMap': 'kubernetes-models/v1/ConfigMap',
  'v1/Service': 'kubernetes-models/v1/Service',
  'apps/v1/Deployment': 'kubernetes-models/apps/v1/Deployment',
  'batch/v1/Job': 'kubernetes-models/batch/v1/Job',
  'policy/v1/PodDisruptionBudget': 'kubernetes-models/policy/v1/PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
  'networking.k8s.io/v1/Ingress': 'kubernetes-models/networking.k8s.io/v1/Ingress',
};

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.keys(selector).length > 0 && Object.entries(selector).every(([k, v]) => labels?.[k] === v);

/** The variables of the README configuration table. */
function readmeVariables(): string[] {
  const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
  const table = readme.split('<!-- config-table:start -->')[1].split('<!-- config-table:end -->')[0];
  return [...new Set([...table.matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]))];
}

describe('deploy/kubernetes: manifests validated offline', () => {
  it('every document parses and is valid against the Kubernetes schema of its kind, in the namespace cms', async () => {
    expect(objects.length).to.be.greaterThan(15);
    for (const { file, object } of objects) {
      const key = `${object.apiVersion}/${object.kind}`;
      const module = MODELS[key];
      expect(module, `${file}: ${key} has no model here`).to.be.a('string');
      const models = (await import(module)) as Record<string, new (data: unknown) => { validate(): void }>;
      const where = `${file}: ${object.kind} ${object.metadata?.name}`;
      expect(() => new models[object.kind](object).validate(), where).to.not.throw();
      if (object.kind !== 'Namespace') expect(object.metadata.namespace, where).to.equal('cms');
    }
    expect(named('Namespace', 'cms')).to.not.equal(undefined);
  });

  it('the schemas catch a wrong manifest (the validation is not a no-op)', async () => {
    const { Deployment } = await import('kubernetes-models/apps/v1/Deployment');
    const deployment = structuredClone(named('Deployment', 'core-api')!);
    deployment.spec.template.spec.containers[0].ports[0].containerPort = '3003';
    expect(() => new Deployment(deployment as never).validate()).to.throw('must be integer');
  });

  it('a Deployment per service on its port, readiness on /health and liveness on /health/live', () => {
    const health = readFileSync(path.join(PROJECT_ROOT, 'plugins', 'health', 'routes', 'health.ts'), 'utf8');
    expect(health).to.include("'/health',").and.include("'/health/live',");
    for (const name of SERVICE_NAMES) {
      const deployment = named('Deployment', name);
      expect(deployment, name).to.not.equal(undefined);
      const pod = deployment!.spec.template;
      expect(matches(deployment!.spec.selector.matchLabels, pod.metadata.labels), `${name} selector`).to.equal(true);
      const [container] = pod.spec.containers;
      expect(container.args).to.deep.equal(['start', '--service', name]);
      expect(container.ports).to.deep.equal([{ name: 'http', containerPort: SERVICE_PORTS[name] }]);
      const env = Object.fromEntries(container.env.map((e: { name: string; value: string }) => [e.name, e.value]));
      expect(env.PORT).to.equal(String(SERVICE_PORTS[name]));
      expect(container.readinessProbe.httpGet).to.deep.equal({ path: '/health', port: 'http' });
      expect(container.livenessProbe.httpGet).to.deep.equal({ path: '/health/live', port: 'http' });
      expect(container.envFrom).to.deep.equal([
        { configMapRef: { name: 'cms-config' } },
        { secretRef: { name: 'cms-secrets' } },
      ]);
      // A rolling upgrade never has fewer ready pods than wanted.
      expect(deployment!.spec.strategy.rollingUpdate.maxUnavailable).to.equal(0);
    }
    // The service-to-service addresses of compose.yaml, through the Services.
    const envOf = (name: string) =>
      Object.fromEntries(
        named('Deployment', name)!.spec.template.spec.containers[0].env.map((e: { name: string; value: string }) => [
          e.name,
          e.value,
        ]),
      );
    expect(envOf('core-api').ASSET_SERVICE_URL).to.equal('http://asset-processor:3002/api/v1');
    expect(envOf('gateway').GATEWAY_CORE_API_URL).to.equal('http://core-api:3003');
  });

  it('every Service selects the pods of a Deployment and targets a port they declare', () => {
    const deployments = ofKind('Deployment');
    for (const service of ofKind('Service')) {
      const target = deployments.filter((d) => matches(service.spec.selector, d.spec.template.metadata.labels));
      expect(target, `Service ${service.metadata.name}`).to.have.length(1);
      const ports = target[0].spec.template.spec.containers.flatMap((c: { ports: object[] }) => c.ports);
      for (const port of service.spec.ports) {
        expect(
          ports.some(
            (p: { name: string; containerPort: number }) =>
              p.name === port.targetPort || p.containerPort === port.targetPort,
          ),
          `Service ${service.metadata.name} port ${port.name}`,
        ).to.equal(true);
      }
    }
    for (const name of [...SERVICE_NAMES, 'edge']) expect(named('Service', name), name).to.not.equal(undefined);
  });

  it('a PodDisruptionBudget and a HorizontalPodAutoscaler for every Deployment', () => {
    for (const deployment of ofKind('Deployment')) {
      const { name } = deployment.metadata;
      const labels = deployment.spec.template.metadata.labels;
      const budgets = ofKind('PodDisruptionBudget').filter((b) => matches(b.spec.selector.matchLabels, labels));
      expect(budgets, `${name} budget`).to.have.length(1);
      const scalers = ofKind('HorizontalPodAutoscaler').filter((h) => h.spec.scaleTargetRef.name === name);
      expect(scalers, `${name} autoscaler`).to.have.length(1);
      expect(scalers[0].spec.scaleTargetRef.kind).to.equal('Deployment');
      // Two pods at least: the budget lets one go while the other serves.
      expect(scalers[0].spec.minReplicas).to.be.at.least(2).and.at.most(scalers[0].spec.maxReplicas);
      expect(deployment.spec.replicas).to.equal(scalers[0].spec.minReplicas);
    }
  });

  it("the migration Job runs the product's migrate command with the backends' configuration", () => {
    const cli = readFileSync(path.join(PROJECT_ROOT, 'runtime', 'cli.ts'), 'utf8');
    expect(cli).to.include("command === 'migrate'");
    const job = named('Job', 'cms-migrate')!;
    const [container] = job.spec.template.spec.containers;
    expect(container.args).to.deep.equal(['migrate']);
    expect(container.image).to.equal(named('Deployment', 'core-api')!.spec.template.spec.containers[0].image);
    expect(container.envFrom).to.deep.equal(named('Deployment', 'core-api')!.spec.template.spec.containers[0].envFrom);
    expect(job.spec.template.spec.restartPolicy).to.equal('Never');
  });

  it('every variable of the README table is in the ConfigMap, a Deployment or the Secret; no secret in the ConfigMap', () => {
    const configFile = readFileSync(path.join(DIR, 'config.yaml'), 'utf8');
    const guide = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    const config = named('ConfigMap', 'cms-config')!.data!;
    const perDeployment = new Set(
      ofKind('Deployment').flatMap((d) =>
        d.spec.template.spec.containers.flatMap((c: { env?: { name: string }[] }) => (c.env ?? []).map((e) => e.name)),
      ),
    );
    // The Secret's keys: those the README here names, in backquotes or in its create command.
    const secrets = new Set(
      [...guide.matchAll(/`([A-Z0-9_]+)`|--from-literal=([A-Z0-9_]+)=/g)]
        .map((m) => m[1] ?? m[2])
        .filter((n) => !(n in config)),
    );
    for (const name of readmeVariables()) {
      const listed = name in config || new RegExp(`^  # ${name}: `, 'm').test(configFile);
      expect(listed || perDeployment.has(name) || secrets.has(name), name).to.equal(true);
    }
    for (const name of Object.keys(config))
      expect(name, 'a secret in the ConfigMap').to.not.match(/PASSWORD|SECRET|_KEY$|TOKEN/);
    for (const name of ['DATABASE_URL', 'S3_SECRET_ACCESS_KEY', 'TOTP_ENCRYPTION_KEY', 'DAM_SERVICE_TOKEN']) {
      expect(guide, name).to.include(`--from-literal=${name}=`);
    }
  });

  it('the edge: nginx with the generated configuration naming the Services, behind the Ingress', () => {
    const guide = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    const command = /```sh\n(EDGE_RESOLVER=[^`]+?)npm run -s edge:config/.exec(guide);
    expect(command, 'the edge:config command in the README').to.not.equal(null);
    const env = Object.fromEntries([...command![1].matchAll(/(EDGE_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
    const conf = renderNginxConf(edgeInputsFromEnv(env));
    for (const name of SERVICE_NAMES) {
      const service = named('Service', name)!;
      // Headless: the name resolves to every ready pod, which nginx balances and retries across.
      expect(service.spec.clusterIP, name).to.equal('None');
      expect(conf).to.include(`server ${name}.cms.svc.cluster.local:${service.spec.ports[0].port} resolve;`);
    }
    expect(conf).to.include('resolver kube-dns.kube-system.svc.cluster.local').and.include('set_real_ip_from');
    expect(conf).to.match(/listen 8000;/);

    const edge = named('Deployment', 'edge')!.spec.template.spec;
    expect(edge.containers[0].ports[0].containerPort).to.equal(8000);
    expect(edge.volumes[0].configMap.name).to.equal('cms-edge');
    expect(edge.containers[0].volumeMounts[0]).to.include({
      mountPath: '/etc/nginx/nginx.conf',
      subPath: 'nginx.conf',
    });
    expect(guide).to.include('kubectl -n cms create configmap cms-edge --from-file=nginx.conf');

    const backend = named('Ingress', 'cms')!.spec.rules[0].http.paths[0].backend.service;
    expect(backend.name).to.equal('edge');
    expect(named('Service', 'edge')!.spec.ports.map((p: { name: string }) => p.name)).to.include(backend.port.name);
  });

  it('the README applies every file', () => {
    const guide = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    for (const file of files) expect(guide, file).to.include(`deploy/kubernetes/${file}`);
  });
});
