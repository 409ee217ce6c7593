/** Every string value inside `value` (keys excluded), walked iteratively: node trees can be deep. */
export function collectStrings(value: unknown, into: Set<string> = new Set()): Set<string> {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === 'string') into.add(v);
    else if (v && typeof v === 'object') for (const c of Object.values(v)) stack.push(c);
  }
  return into;
}

/** A copy of `value` with every string equal to a key of `ids` replaced by its value. */
export function remapStrings(value: unknown, ids: ReadonlyMap<string, string>): unknown {
  if (typeof value === 'string') return ids.get(value) ?? value;
  if (value === null || typeof value !== 'object') return value;
  const copy = structuredClone(value) as object;
  const stack: object[] = [copy];
  while (stack.length) {
    const node = stack.pop() as Record<string, unknown>;
    for (const k of Object.keys(node)) {
      const v = node[k];
      if (typeof v === 'string') {
        const next = ids.get(v);
        if (next !== undefined) node[k] = next;
      } else if (v && typeof v === 'object') stack.push(v);
    }
  }
  return copy;
}
