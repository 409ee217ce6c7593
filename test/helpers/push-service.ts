import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the stand-in push service saw for one message, after checking it as the Web Push RFCs say. */
export interface PushDelivery {
  path: string;
  /** The VAPID JWT claims (RFC 8292), present only when the ES256 signature verified with `k`. */
  claims: { aud: string; exp: number; sub: string };
  /** The `k` parameter of the Authorization header: the sender's public key (base64url). */
  senderKey: string;
  ttl: string | undefined;
  /** The payload decrypted with the subscriber's private key (RFC 8291, aes128gcm, RFC 8188). */
  payload: string;
}

/** A browser's subscription: the key pair and auth secret stay here, on the "browser" side. */
export interface FakeSubscriber {
  endpoint: string;
  keys: { p256dh: string; auth: string };
}

const b64u = (b: Buffer) => b.toString('base64url');
const hmac = (key: Buffer, data: Buffer) => createHmac('sha256', key).update(data).digest();

/** Verifies `vapid t=<jwt>, k=<key>` (RFC 8292): ES256 over `header.claims` with the key `k`. */
function checkVapid(authorization: string | undefined): { claims: PushDelivery['claims']; senderKey: string } {
  const m = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(authorization ?? '');
  if (!m) throw new Error(`not a vapid Authorization header: ${authorization}`);
  const [header, claims, signature] = m[1].split('.');
  const raw = Buffer.from(m[2], 'base64url');
  if (raw.length !== 65 || raw[0] !== 4) throw new Error('k is not an uncompressed P-256 point');
  const key = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: b64u(raw.subarray(1, 33)), y: b64u(raw.subarray(33)) },
    format: 'jwk',
  });
  const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8'));
  if (head.alg !== 'ES256') throw new Error(`JWT alg ${head.alg}`);
  const ok = verify(
    'sha256',
    Buffer.from(`${header}.${claims}`),
    { key, dsaEncoding: 'ieee-p1363' },
    Buffer.from(signature, 'base64url'),
  );
  if (!ok) throw new Error('VAPID signature does not verify');
  return { claims: JSON.parse(Buffer.from(claims, 'base64url').toString('utf8')), senderKey: m[2] };
}

/** The user agent's side of RFC 8291: derive the key and nonce, decrypt the single record, drop padding. */
function decrypt(body: Buffer, ua: { ecdh: ReturnType<typeof createECDH>; auth: Buffer }): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20];
  const asPublic = body.subarray(21, 21 + idlen);
  const record = body.subarray(21 + idlen);
  const ecdhSecret = ua.ecdh.computeSecret(asPublic);
  const uaPublic = ua.ecdh.getPublicKey();
  const prkKey = hmac(ua.auth, ecdhSecret);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, asPublic, Buffer.from([1])]);
  const ikm = hmac(prkKey, keyInfo);
  const prk = hmac(salt, ikm);
  const cek = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const plain = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = plain.length - 1;
  while (end >= 0 && plain[end] === 0) end--;
  if (plain[end] !== 2) throw new Error('last record has no 0x02 padding delimiter');
  return plain.subarray(0, end).toString('utf8');
}

/**
 * A local push service: hands out subscriptions (browser key pairs), checks each message's VAPID
 * token and decrypts its payload; a message that fails a check answers 400 and is kept in `rejected`.
 * `answer(path, status)` makes a subscription answer e.g. 410 Gone (expired).
 */
export async function startPushService() {
  const browsers = new Map<string, { ecdh: ReturnType<typeof createECDH>; auth: Buffer }>();
  const answers = new Map<string, number>();
  const deliveries: PushDelivery[] = [];
  const rejected: string[] = [];
  // `hold(n)`: answers wait until n messages are waiting at once (a sender that sends one at a time
  // never gets there: its first message times out).
  let holdFor = 0;
  let held: Array<() => void> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = req.url ?? '';
      try {
        const ua = browsers.get(path);
        if (!ua) throw new Error(`unknown subscription ${path}`);
        if (req.headers['content-encoding'] !== 'aes128gcm') throw new Error('content-encoding is not aes128gcm');
        const vapid = checkVapid(req.headers.authorization);
        const payload = decrypt(Buffer.concat(chunks), ua);
        deliveries.push({ path, ...vapid, ttl: req.headers.ttl as string | undefined, payload });
        const reply = () => void res.writeHead(answers.get(path) ?? 201).end();
        if (holdFor === 0) return reply();
        held.push(reply);
        if (held.length >= holdFor) {
          for (const release of held) release();
          held = [];
          holdFor = 0;
        }
      } catch (err) {
        rejected.push((err as Error).message);
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    deliveries,
    rejected,
    /** A new browser subscription at this service. */
    subscriber(): FakeSubscriber {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/${b64u(randomBytes(9))}`;
      browsers.set(path, { ecdh, auth });
      return { endpoint: origin + path, keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) } };
    },
    answer: (endpoint: string, status: number) => void answers.set(new URL(endpoint).pathname, status),
    /** The next `n` messages are answered only once all `n` are waiting at once. */
    hold: (n: number) => {
      holdFor = n;
      held = [];
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
