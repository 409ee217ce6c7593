import { hash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { passwordHashQueue } from './work-queue.ts';

/** The scrypt cost of new hashes in every real process (~50 ms of CPU per hash). */
export const PRODUCTION_SCRYPT_COST: Readonly<ScryptCost> = Object.freeze({ N: 16384, r: 8, p: 1 });
const KEYLEN = 64;

export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

let cost: Readonly<ScryptCost> = PRODUCTION_SCRYPT_COST;

/**
 * Lowers the cost of new hashes for the test suite only (test/setup.ts calls it; nothing else may):
 * the suite creates hundreds of users and full cost would dominate its run time. Hashes carry their
 * parameters, so verifying is unaffected either way.
 */
export function setScryptCostForTests(next: Readonly<ScryptCost>): void {
  cost = next;
}

function scryptAsync(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // Every hash waits its turn in the process's bounded queue (work-queue.ts): a flood of sign-ins
  // queues, or gets 503 when the queue is full, instead of taking every thread of libuv's pool.
  return passwordHashQueue.run(
    () =>
      new Promise((resolve, reject) =>
        scrypt(password, salt, KEYLEN, { N: n, r, p, maxmem: 64 * 1024 * 1024 }, (err, key) =>
          err ? reject(err) : resolve(key),
        ),
      ),
  );
}

/** Memory-hard password hashing (scrypt), encoded with its parameters so they can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const { N, r, p } = cost;
  const key = await scryptAsync(password, salt, N, r, p);
  return `scrypt$${N}$${r}$${p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, encoded: string | null | undefined): Promise<boolean> {
  const parts = (encoded ?? '').split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time on unknown users so timing does not reveal which e-mails exist.
    await scryptAsync(password, DUMMY_SALT, cost.N, cost.r, cost.p);
    return false;
  }
  const [, n, r, p, salt, hash] = parts;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), Number(n), Number(r), Number(p));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

const DUMMY_SALT = randomBytes(16);

/** Tokens (sessions, reset links, recovery codes) are stored only as their SHA-256. */
// One-shot `crypto.hash` (Node >= 20.12): a third of the cost of createHash().update().digest() on hot paths.
export const hashToken = (token: string) => hash('sha256', token, 'hex');
export const newToken = (bytes = 32) => randomBytes(bytes).toString('base64url');

/** Constant-time comparison of two strings of possibly different length. */
export function safeEqual(a: string, b: string): boolean {
  const ha = hash('sha256', a, 'buffer');
  const hb = hash('sha256', b, 'buffer');
  return timingSafeEqual(ha, hb) && a.length === b.length;
}
