import assert from 'node:assert/strict';

/** What must never reach a client: property names (at any depth) and values (as text, anywhere). */
export interface Forbidden {
  keys?: readonly string[];
  values?: readonly string[];
}

/**
 * Where `answer` (a parsed JSON answer, or the raw text of one) holds a forbidden key or value: one
 * line per finding, `$.items[0].secret` style. Walks iteratively, so a deep answer cannot overflow
 * the stack.
 */
export function answerLeaks(answer: unknown, forbidden: Forbidden): string[] {
  const keys = new Set(forbidden.keys ?? []);
  const values = (forbidden.values ?? []).filter((v) => v.length > 0);
  const found: string[] = [];
  const stack: Array<{ at: string; value: unknown }> = [{ at: '$', value: answer }];
  while (stack.length > 0) {
    const { at, value } = stack.pop()!;
    if (typeof value === 'string') {
      for (const v of values) if (value.includes(v)) found.push(`${at} holds the value ${JSON.stringify(v)}`);
    } else if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) stack.push({ at: `${at}[${i}]`, value: value[i] });
    } else if (value !== null && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        if (keys.has(key)) found.push(`${at}.${key} is a forbidden key`);
        for (const v of values) if (key.includes(v)) found.push(`${at} has a key holding ${JSON.stringify(v)}`);
        stack.push({ at: `${at}.${key}`, value: item });
      }
    }
  }
  return found;
}

/**
 * Fails when an answer leaks: `what` names the answer in the message (`GET /mail-settings`). A body
 * that is not JSON is checked as text.
 */
export function assertNoLeak(what: string, body: string | unknown, forbidden: Forbidden): void {
  let answer = body;
  if (typeof body === 'string') {
    try {
      answer = JSON.parse(body);
    } catch {
      answer = body;
    }
  }
  const found = answerLeaks(answer, forbidden);
  assert.deepEqual(found, [], `${what} leaks:\n${found.join('\n')}`);
}
