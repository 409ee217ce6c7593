import type { Server } from 'node:net';

// Start and stop of every benchmark server (a child process the benchmark forks with startChild in
// children.ts). Nothing here loads the product, so a bare reference server stays bare.

/** The port a listening server got (servers here listen on port 0, a free one). */
export function portOf(server: Pick<Server, 'address'>): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/**
 * The end of every benchmark server's start: tells the parent (startChild in children.ts) that it is
 * ready with `info` (its port and the like), then runs until the parent sends SIGTERM or goes away,
 * when `stop` closes what it opened and the process exits.
 */
export function reportReady(info: object, stop: () => Promise<void>): void {
  process.send?.(info);
  // `cpu`: the CPU time this process used so far; a parent divides the difference over a load by its
  // requests, a per-request cost that other work on a shared machine distorts far less than req/s.
  process.on('message', (message: { type?: string }) => {
    if (message?.type !== 'cpu') return;
    const { user, system } = process.cpuUsage();
    process.send?.({ type: 'cpu:done', micros: user + system });
  });
  const shutdown = async () => {
    await stop();
    process.exit(0);
  };
  process.on('SIGTERM', shutdown);
  process.on('disconnect', shutdown);
}

/** Throws unless this process is a child a benchmark started (IPC to the parent) and `required` is set. */
export function requireParent(file: string, parent: string, ...required: Array<string | undefined>): void {
  if (!process.send || required.some((value) => !value)) throw new Error(`${file} runs as a child of ${parent}`);
}
