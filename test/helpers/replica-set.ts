import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/loader.ts';
import { freePort, startNginx, startStub, type RunningNginx, type StubUpstream } from './nginx.ts';

const CMS = path.join(PROJECT_ROOT, 'bin', 'cms.js');
export type Service = 'core-api' | 'asset-processor' | 'gateway';

/** One `cms start --service <name>` process, in a process group of its own. */
export interface Replica {
  service: Service;
  port: number;
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  output(): string;
  /** SIGKILL to its process group; resolves once it has exited. */
  kill(): Promise<void>;
}

export interface ReplicaSet {
  nginx: RunningNginx;
  replicas: Record<Service, Replica[]>;
  dataDir: string;
  /** Kills every process (also those still starting) and nginx; safe to call twice. */
  stop(): Promise<void>;
}

/** SIGKILL to the process group of `child` (started with `detached`), unless it has exited. */
export function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/**
 * Starts the product's real start command for one service and resolves once its /health answers 200.
 * `spawned` gets the process at once, so a start that fails elsewhere still lets the caller kill it.
 */
export async function startReplica(
  service: Service,
  env: NodeJS.ProcessEnv,
  spawned: ChildProcess[],
): Promise<Replica> {
  const port = await freePort();
  const child = spawn(process.execPath, [CMS, 'start', '--service', service], {
    env: { ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A group of its own: the after hook kills it, and whatever it started, with one signal.
    detached: true,
  });
  spawned.push(child);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  let done = false;
  const exited = new Promise<void>((resolve) =>
    child.on('exit', () => {
      done = true;
      resolve();
    }),
  );
  // Seven cold starts share two cores (and the suite's other workers): allow for a slow machine.
  const deadline = Date.now() + 120_000;
  const url = `http://127.0.0.1:${port}`;
  for (;;) {
    const health = await fetch(`${url}/health`).catch(() => undefined);
    if (health?.status === 200) break;
    if (done || Date.now() > deadline) {
      killGroup(child);
      throw new Error(`${service} on ${port} did not become healthy (exit ${child.exitCode}):\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    service,
    port,
    url,
    child,
    exited,
    output: () => output,
    kill: async () => {
      killGroup(child);
      await exited;
    },
  };
}

/**
 * Several replicas of each backend as separate processes on one database, behind the real nginx
 * generated from the edge table with every replica listed in its upstream block.
 * The core-api replicas start together (on an empty database they apply the migrations, once, under
 * the advisory lock, and each stores the job engine's schedules), then the others on that schema.
 */
export async function startReplicaSet(opts: {
  counts: Record<Service, number>;
  env: NodeJS.ProcessEnv;
}): Promise<ReplicaSet> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cms-replicas-'));
  const spawned: ChildProcess[] = [];
  const statics: StubUpstream[] = [];
  let nginx: RunningNginx | undefined;
  const stop = async () => {
    for (const child of spawned) killGroup(child);
    await Promise.all(spawned.map((c) => (c.exitCode === null && c.signalCode === null ? once(c) : undefined)));
    await nginx?.stop();
    await Promise.all(statics.splice(0).map((s) => s.close()));
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // Every replica shares the data folder, as replicas share a volume (or the S3 store); each writes
    // its own log files.
    const envOf = (service: Service, i: number): NodeJS.ProcessEnv => ({
      ...opts.env,
      CMS_DATA_DIR: dataDir,
      LOG_DIR: path.join(dataDir, 'logs', `${service}-${i}`),
    });
    const start = (service: Service) =>
      Array.from({ length: opts.counts[service] }, (_, i) => startReplica(service, envOf(service, i), spawned));
    const core = await Promise.all(start('core-api'));
    const rest = await Promise.all([...start('gateway'), ...start('asset-processor')]);
    const replicas: Record<Service, Replica[]> = {
      'core-api': core,
      gateway: rest.filter((r) => r.service === 'gateway'),
      'asset-processor': rest.filter((r) => r.service === 'asset-processor'),
    };
    for (const name of ['admin-dashboard', 'editor']) statics.push(await startStub(name));
    const list = (service: Service) => replicas[service].map((r) => `127.0.0.1:${r.port}`).join(',');
    nginx = await startNginx({
      upstreams: {
        'core-api': list('core-api'),
        gateway: list('gateway'),
        'asset-processor': list('asset-processor'),
        'admin-dashboard': statics[0].address,
        editor: statics[1].address,
      },
    });
    return { nginx, replicas, dataDir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

const once = (child: ChildProcess) => new Promise<void>((resolve) => child.once('exit', () => resolve()));

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer read by the test's assertions
  json: any;
}

/**
 * A browser-like HTTP client: a cookie jar, and a source address of its own on the loopback range
 * (127.0.0.0/8), so the per-address limits it meets are its own and not those of another case.
 */
export class Browser {
  private readonly cookies = new Map<string, string>();
  private readonly agent: http.Agent;

  constructor(readonly from = '127.0.0.1') {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  }

  /** Another client (a source address of its own) holding this one's cookies: the same signed-in user. */
  sibling(from: string): Browser {
    const other = new Browser(from);
    for (const [k, v] of this.cookies) other.cookies.set(k, v);
    return other;
  }

  cookie(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  /** Sends a request to `base` (a replica's or nginx's URL); JSON in and out; keeps the cookies. */
  request(
    base: string,
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const url = new URL(pathname, base);
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = http.request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname + url.search,
          method,
          localAddress: this.from,
          agent: this.agent,
          headers: {
            ...(payload ? { 'content-type': 'application/json', 'content-length': payload.length } : {}),
            ...(this.cookies.size ? { cookie: this.cookie() } : {}),
            // As a browser on the proxy's page sends it with a write.
            ...(method !== 'GET' ? { origin: base } : {}),
            ...headers,
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', reject);
          res.on('end', () => {
            for (const line of res.headers['set-cookie'] ?? []) {
              const [pair] = line.split(';');
              const at = pair.indexOf('=');
              const name = pair.slice(0, at).trim();
              const value = pair.slice(at + 1).trim();
              if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
              else this.cookies.set(name, value);
            }
            const text = Buffer.concat(chunks).toString('utf8');
            const isJson = (res.headers['content-type'] ?? '').includes('json') && text !== '';
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              body: text,
              json: isJson ? JSON.parse(text) : undefined,
            });
          });
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
