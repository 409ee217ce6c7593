import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** What the receiver answers a call: a status, headers, or holding the request open. */
export type Answer = { status: number; headers?: Record<string, string> } | 'hold';

/**
 * A real HTTP receiver on loopback that records every call and answers what the test says (default
 * 204). `inFlight` counts calls being answered per event id, to catch two sends of one delivery at once.
 */
export async function startReceiver() {
  const calls: ReceivedCall[] = [];
  let answer: (call: ReceivedCall) => Answer | Promise<Answer> = () => ({ status: 204 });
  const inFlight = new Map<string, number>();
  let maxInFlightPerEvent = 0;
  const held: http.ServerResponse[] = [];
  const waiters: { n: number; resolve: () => void }[] = [];

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const call = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      const key = `${req.headers['x-cms-event-id']}|${req.url}`;
      inFlight.set(key, (inFlight.get(key) ?? 0) + 1);
      maxInFlightPerEvent = Math.max(maxInFlightPerEvent, inFlight.get(key)!);
      calls.push(call);
      for (const w of waiters.splice(0))
        if (calls.length >= w.n) w.resolve();
        else waiters.push(w);
      const a = await answer(call);
      if (a === 'hold') {
        held.push(res);
        return;
      }
      inFlight.set(key, inFlight.get(key)! - 1);
      res.writeHead(a.status, a.headers ?? {});
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    get maxInFlightPerEvent() {
      return maxInFlightPerEvent;
    },
    answerWith(fn: (call: ReceivedCall) => Answer | Promise<Answer>) {
      answer = fn;
    },
    /** Resolves once `n` calls in total have arrived (rejects after `ms`). */
    waitForCalls(n: number, ms = 15_000): Promise<void> {
      if (calls.length >= n) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`expected ${n} calls, got ${calls.length}`)), ms);
        waiters.push({
          n,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
    reset() {
      calls.splice(0);
      inFlight.clear();
      maxInFlightPerEvent = 0;
      answer = () => ({ status: 204 });
    },
    async close() {
      for (const res of held) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
