import net from 'node:net';

/** What came back for a request written by hand. */
export interface RawAnswer {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/**
 * One request written on a plain socket, its target exactly as given: no HTTP client in between to
 * resolve `..`, re-encode `%2e` or turn `\` into `/`. `Connection: close`, so the answer ends with
 * the socket.
 */
export function rawRequest(
  port: number,
  target: string,
  opts: { method?: string; headers?: Record<string, string>; host?: string } = {},
): Promise<RawAnswer> {
  const lines = [
    `${opts.method ?? 'GET'} ${target} HTTP/1.1`,
    `Host: ${opts.host ?? 'edge.test'}`,
    'Connection: close',
    ...Object.entries(opts.headers ?? {}).map(([name, value]) => `${name}: ${value}`),
  ];
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      const split = text.indexOf('\r\n\r\n');
      const [statusLine, ...headerLines] = text.slice(0, split).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const rest = text.slice(split + 4);
      const body = /chunked/i.test(headers['transfer-encoding'] ?? '') ? unchunk(rest) : rest;
      resolve({ status: Number(statusLine?.split(' ')[1]), headers, body });
    });
  });
}

/** The data of a chunked body. */
function unchunk(text: string): string {
  let body = '';
  let at = 0;
  for (;;) {
    const lineEnd = text.indexOf('\r\n', at);
    const size = Number.parseInt(text.slice(at, lineEnd), 16);
    if (!(size > 0)) return body;
    body += text.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}

/**
 * Request targets that try to leave `prefix` for `/<goal>` in the spellings one percent-decoding
 * reveals: dot segments raw, percent-encoded (either case, mixed), with encoded slashes, with
 * backslashes raw and encoded, before `;` path parameters, NUL or an encoded `?`/`#`, and overlong
 * UTF-8. Every process and the proxy refuse each one (400); none reaches an upstream.
 */
export function climbingTargets(prefix: string, goal: string): string[] {
  const p = prefix.replace(/\/$/, '');
  return [
    `${p}/../${goal}`,
    `${p}/x/../../${goal}`,
    `${p}/./../${goal}`,
    `${p}//../${goal}`,
    `${p}/%2e%2e/${goal}`,
    `${p}/%2E%2E/${goal}`,
    `${p}/.%2e/${goal}`,
    `${p}/%2e./${goal}`,
    `${p}/x/%2e%2e/%2e%2e/${goal}`,
    `${p}/..%2f${goal}`,
    `${p}/..%2F${goal}`,
    `${p}/%2e%2e%2f${goal}`,
    `${p}/x%2f..%2f..%2f${goal}`,
    `${p}/..\\${goal}`,
    `${p}/x\\..\\..\\${goal}`,
    `${p}/..%5c${goal}`,
    `${p}/..%5C${goal}`,
    `${p}/%2e%2e%5c${goal}`,
    `${p}/..;/${goal}`,
    `${p}/..;x=1/${goal}`,
    `${p}/%2e%2e;/${goal}`,
    `${p}/..%3b/${goal}`,
    `${p}/..%00/${goal}`,
    `${p}/.%00./${goal}`,
    `${p}/%00/../${goal}`,
    `${p}/..%3f/${goal}`,
    `${p}/..%23/${goal}`,
    `${p}/%c0%ae%c0%ae/${goal}`,
    `${p}/..%c0%af${goal}`,
    `${p}/%e0%80%ae%e0%80%ae/${goal}`,
    `${p}/..%c1%9c${goal}`,
  ];
}

/**
 * The same climbs encoded twice or more (`%252e%252e`): a literal `%2e%2e` to a service that decodes
 * once, so data there (a stored name may hold it), but a climb to a hop that decodes again. The
 * gateway's passthroughs refuse them (400); a route and the proxy pass them on exactly as sent.
 */
export function reEncodedTargets(prefix: string, goal: string): string[] {
  const p = prefix.replace(/\/$/, '');
  return [
    `${p}/%252e%252e/${goal}`,
    `${p}/..%252f${goal}`,
    `${p}/%252e%252e%252f${goal}`,
    `${p}/%25252e%25252e/${goal}`,
    `${p}/..%255c${goal}`,
    `${p}/%252E%252e%253b/${goal}`,
  ];
}

/**
 * Targets under `prefix` that look close to the above but stay inside it; they must pass unchanged:
 * dots inside names, `...`, a literal `%` in a name, encoded slashes and backslashes inside a
 * segment, and `..` in the query string.
 */
export function confinedTargets(prefix: string): string[] {
  const p = prefix.replace(/\/$/, '');
  return [
    `${p}/logo.png`,
    `${p}/a/.well-known/b`,
    `${p}/...`,
    `${p}/..x/x..`,
    `${p}/100%25.png`,
    `${p}/50%25ff.png`,
    `${p}/a%2Fb`,
    `${p}/a%5Cb.png`,
    `${p}/caf%C3%A9`,
    `${p}/x?path=../../etc&q=%2e%2e%2f`,
  ];
}
