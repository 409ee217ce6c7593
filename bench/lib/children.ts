import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A server the benchmark runs in its own process, so load generation never shares its event loop. */
export interface ChildServer<T> {
  info: T;
  /** Sends `{ type, ...payload }` over IPC and resolves with the child's `<type>:done` answer. */
  ask<R>(type: string, payload?: Record<string, unknown>, timeoutMs?: number): Promise<R>;
  stop(): Promise<void>;
}

/** Forks `bench/lib/<file>` under tsx and waits for its first IPC message (its port and the like). */
export async function startChild<T>(
  file: string,
  env: Record<string, string>,
  timeoutMs = 60_000,
): Promise<ChildServer<T>> {
  const child: ChildProcess = fork(fileURLToPath(new URL(file, import.meta.url)), [], {
    env: { ...process.env, ...env },
    // BENCH_CHILD_NODE_ARGS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`, profiles the servers.
    execArgv: ['--import', 'tsx', ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const info = await new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${file} did not start within ${timeoutMs} ms`)), timeoutMs);
    child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${file} exited with code ${code} before it was ready`));
    });
  });
  return {
    info,
    ask: <R>(type: string, payload: Record<string, unknown> = {}, askTimeoutMs = 30_000) =>
      new Promise<R>((resolve, reject) => {
        const timer = setTimeout(() => {
          child.off('message', onMessage);
          reject(new Error(`${file} did not answer ${type} within ${askTimeoutMs} ms`));
        }, askTimeoutMs);
        const onMessage = (message: { type?: string }) => {
          if (message?.type !== `${type}:done`) return;
          clearTimeout(timer);
          child.off('message', onMessage);
          resolve(message as R);
        };
        child.on('message', onMessage);
        child.send({ type, ...payload });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
