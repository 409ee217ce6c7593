import { expect } from 'chai';

/** Keys of internal columns that no answer of any plugin may carry. */
export const INTERNAL_KEYS = [
  'password_hash',
  'passwordHash',
  'token_hash',
  'tokenHash',
  'key_hash',
  'keyHash',
  'secret',
  'secret_hash',
  'client_secret',
  'clientSecret',
  'private_key',
  'privateKey',
  'claim_token',
  'claimToken',
  'claimed_until',
  'claimedUntil',
  'lease_until',
  'leaseUntil',
  'seq',
  'internal_seq',
];

/** How deep a walk goes; an answer nested deeper is itself a finding. */
const MAX_DEPTH = 64;

/**
 * Every place in a JSON answer where a forbidden key or a forbidden value (a raw secret, as a whole
 * string or inside one) occurs, as paths like `items.0.token_hash`. Walks iteratively (an answer is
 * outside input as far as a test is concerned).
 */
export function leaksIn(
  answer: unknown,
  forbidden: { keys?: readonly string[]; values?: readonly string[] } = {},
): string[] {
  const keys = new Set(forbidden.keys ?? INTERNAL_KEYS);
  const values = (forbidden.values ?? []).filter((v) => v.length > 0);
  const found: string[] = [];
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: answer, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (values.some((v) => value.includes(v))) found.push(`${path || '(answer)'}: a forbidden value`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_DEPTH) {
      found.push(`${path}: nested deeper than ${MAX_DEPTH}`);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      const at = path ? `${path}.${key}` : key;
      if (keys.has(key)) found.push(`${at}: an internal key`);
      stack.push({ value: child, path: at, depth: depth + 1 });
    }
  }
  return found;
}

/** The answer, as a response of `inject` or as parsed JSON. */
type Answer = { body: string; headers: Record<string, unknown> } | unknown;

const parsed = (answer: Answer): unknown => {
  if (answer && typeof answer === 'object' && 'body' in answer && 'headers' in answer) {
    const { body } = answer as { body: string };
    try {
      return JSON.parse(body);
    } catch {
      return body;
    }
  }
  return answer;
};

/** Fails naming each leak: an internal key or a forbidden value anywhere in the answers. */
export function expectNoLeaks(
  answers: Answer | Answer[],
  forbidden: { keys?: readonly string[]; values?: readonly string[] } = {},
): void {
  const list =
    Array.isArray(answers) && answers.every((a) => a && typeof a === 'object' && 'body' in a) ? answers : [answers];
  const found = list.flatMap((a, i) => leaksIn(parsed(a), forbidden).map((leak) => `answer ${i}: ${leak}`));
  expect(found, 'internal values in answers').to.deep.equal([]);
}
