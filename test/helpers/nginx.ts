import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, chmodSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { DEFAULT_EDGE_INPUTS, renderNginxConf, type EdgeInputs } from '../../edge/generate.ts';
import type { Upstream } from '../../edge/routes.ts';
import { acceptsConnections, freePort } from './ports.ts';
export { freePort };

/** A free TCP port on the loopback interface (free when asked; taken by whoever binds it first). */

/**
 * The nginx binary: NGINX_BIN, else /usr/sbin/nginx, else the PATH. Missing nginx is an error, not a
 * reason to skip: the edge tests are the only check of the proxy configuration.
 */
export function findNginx(): string {
  const dirs = ['/usr/sbin', '/usr/local/sbin', ...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean)];
  const candidates = process.env.NGINX_BIN ? [process.env.NGINX_BIN] : dirs.map((d) => path.join(d, 'nginx'));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // try the next one
    }
  }
  if (process.env.NGINX_BIN) throw new Error(`NGINX_BIN=${process.env.NGINX_BIN} is not an executable nginx binary.`);
  throw new Error(
    'nginx is not installed, and the edge tests run the real reverse proxy. Install it ' +
      '(`apt-get install nginx`; .ci/run does this) or name the binary with NGINX_BIN.',
  );
}

export interface RunningNginx {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The generated configuration it runs. */
  conf: string;
  errorLog(): string;
  stop(): Promise<void>;
}

/**
 * Starts the real nginx with the configuration generated from the edge table for these upstreams,
 * on a free loopback port, with pid file, logs and temporary files in a folder of its own (no
 * root-owned folder needed). Resolves once the port accepts connections.
 */
export async function startNginx(opts: {
  upstreams: Record<Upstream, string>;
  maxBody?: string;
  /** Serve the admin dashboard from this build folder (EDGE_ADMIN_DASHBOARD_ROOT). */
  adminDashboardRoot?: string;
  /** Serve the page editor's page from this build folder (EDGE_EDITOR_ROOT). */
  editorRoot?: string;
}): Promise<RunningNginx> {
  const bin = findNginx();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'cms-edge-'));
  // Run as root, nginx's workers switch to an unprivileged user that must reach the temp folders.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const inputs: EdgeInputs = {
    ...DEFAULT_EDGE_INPUTS,
    listen: `127.0.0.1:${port}`,
    maxBody: opts.maxBody ?? DEFAULT_EDGE_INPUTS.maxBody,
    upstreams: opts.upstreams,
    workerProcesses: '1',
    runtimeDir: dir,
    adminDashboardRoot: opts.adminDashboardRoot,
    editorRoot: opts.editorRoot,
  };
  const conf = renderNginxConf(inputs);
  const confFile = path.join(dir, 'nginx.conf');
  writeFileSync(confFile, conf);
  const errorFile = path.join(dir, 'error.log');
  const errorLog = () => {
    try {
      return readFileSync(errorFile, 'utf8');
    } catch {
      return '';
    }
  };

  const child: ChildProcess = spawn(bin, ['-p', dir, '-e', errorFile, '-c', confFile, '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));

  const stop = async () => {
    if (!gone) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 10_000;
  while (!(await acceptsConnections(port))) {
    if (gone || Date.now() > deadline) {
      const why = `${stderr}\n${errorLog()}`.trim();
      await stop();
      throw new Error(`nginx did not start: ${why || 'no output'}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url: `http://127.0.0.1:${port}`, port, conf, errorLog, stop };
}

/** What a stub upstream saw of one request. */
export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  bodyBytes: number;
}

export interface StubUpstream {
  name: string;
  /** host:port for the generator. */
  address: string;
  /** Every request answered, oldest first. */
  seen: SeenRequest[];
  /** Called as soon as a request's headers arrive, before its body is read. */
  onRequestStart?: (req: http.IncomingMessage) => void;
  close(): Promise<void>;
}

/** How a stub answers one request, when not with 200. */
export interface StubAnswer {
  status: number;
  headers?: Record<string, string>;
}

/**
 * A stand-in upstream: answers with its name in `x-upstream` and, as JSON, what it received (method,
 * url, headers, body size); `answer` may choose another status and add headers.
 */
export async function startStub(
  name: string,
  answer?: (req: http.IncomingMessage) => StubAnswer | undefined,
): Promise<StubUpstream> {
  const stub: StubUpstream = { name, address: '', seen: [], close: async () => undefined };
  const server = http.createServer((req, res) => {
    stub.onRequestStart?.(req);
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => (bodyBytes += chunk.length));
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, bodyBytes };
      stub.seen.push(seen);
      const { status, headers } = answer?.(req) ?? { status: 200 };
      res.writeHead(status, { 'content-type': 'application/json', ...headers, 'x-upstream': name });
      res.end(status === 204 ? undefined : JSON.stringify({ upstream: name, ...seen }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  stub.address = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  stub.close = () =>
    new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return stub;
}
