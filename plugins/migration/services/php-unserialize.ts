/**
 * Reads PHP's `serialize()` format, as Pimcore stores links, galleries' hotspots, blocks and other
 * column values: never executed, never instantiating anything. Objects become plain maps with their
 * class name under `__class` (private and protected property names lose PHP's `\0...\0` prefix);
 * arrays with keys 0..n-1 become lists. Bounded: a string of more than `maxLength` characters or
 * nesting deeper than `maxDepth` is refused with a `PhpUnserializeError`, as is anything malformed.
 */
export type PhpData = null | boolean | number | string | PhpData[] | { [key: string]: PhpData };

export class PhpUnserializeError extends Error {}

const MAX_DEPTH = 64;

export function phpUnserialize(text: string, opts: { maxLength?: number; maxDepth?: number } = {}): PhpData {
  const maxLength = opts.maxLength ?? 4 * 1024 * 1024;
  const maxDepth = opts.maxDepth ?? MAX_DEPTH;
  if (text.length > maxLength) throw new PhpUnserializeError(`serialized value is longer than ${maxLength}`);
  // PHP counts string lengths in bytes: read the UTF-8 bytes.
  const buf = Buffer.from(text, 'utf8');
  let pos = 0;
  const fail = (why: string): never => {
    throw new PhpUnserializeError(`serialized value: ${why} at byte ${pos}`);
  };
  const expect = (ch: string) => {
    if (buf[pos] !== ch.charCodeAt(0)) fail(`expected "${ch}"`);
    pos++;
  };
  const readUntil = (ch: string) => {
    const end = buf.indexOf(ch.charCodeAt(0), pos);
    if (end < 0) fail(`missing "${ch}"`);
    const out = buf.toString('latin1', pos, end);
    pos = end + 1;
    return out;
  };
  const readInt = (until: string) => {
    const raw = readUntil(until);
    if (!/^-?\d+$/.test(raw)) fail('not an integer');
    return Number(raw);
  };
  const readString = (): string => {
    const len = readInt(':');
    if (len < 0 || pos + len + 2 > buf.length) fail('string length out of range');
    expect('"');
    const out = buf.toString('utf8', pos, pos + len);
    pos += len;
    expect('"');
    return out;
  };
  const propName = (key: string | number) => {
    if (typeof key !== 'string') return String(key);
    // "\0*\0name" (protected) and "\0Class\0name" (private).
    const cut = key.lastIndexOf('\0');
    return cut >= 0 ? key.slice(cut + 1) : key;
  };
  const readEntries = (count: number, depth: number, object: boolean): PhpData => {
    if (count < 0 || count > buf.length) fail('entry count out of range');
    expect('{');
    const keys: Array<string | number> = [];
    const values: PhpData[] = [];
    for (let i = 0; i < count; i++) {
      const key = value(depth + 1);
      if (typeof key !== 'string' && typeof key !== 'number') fail('array key must be an integer or string');
      keys.push(key as string | number);
      values.push(value(depth + 1));
    }
    expect('}');
    if (!object && keys.every((k, i) => k === i)) return values;
    const out: { [key: string]: PhpData } = Object.create(null);
    keys.forEach((k, i) => {
      out[object ? propName(k) : String(k)] = values[i];
    });
    return { ...out };
  };
  const value = (depth: number): PhpData => {
    if (depth > maxDepth) fail(`nesting deeper than ${maxDepth}`);
    const type = String.fromCharCode(buf[pos] ?? 0);
    pos++;
    switch (type) {
      case 'N':
        expect(';');
        return null;
      case 'b': {
        expect(':');
        const v = readUntil(';');
        if (v !== '0' && v !== '1') fail('bad boolean');
        return v === '1';
      }
      case 'i':
        expect(':');
        return readInt(';');
      case 'd': {
        expect(':');
        const raw = readUntil(';');
        const n = raw === 'INF' ? Infinity : raw === '-INF' ? -Infinity : raw === 'NAN' ? Number.NaN : Number(raw);
        if (Number.isNaN(n) && raw !== 'NAN') fail('bad float');
        return Number.isFinite(n) ? n : null;
      }
      case 's': {
        expect(':');
        const s = readString();
        expect(';');
        return s;
      }
      case 'a': {
        expect(':');
        return readEntries(readInt(':'), depth, false);
      }
      case 'O': {
        expect(':');
        const cls = readString();
        expect(':');
        const props = readEntries(readInt(':'), depth, true) as { [key: string]: PhpData };
        return { __class: cls, ...(Array.isArray(props) ? {} : props) };
      }
      case 'r':
      case 'R':
        // A back reference: kept as no value (never followed, so no cycle can be built).
        expect(':');
        readInt(';');
        return null;
      default:
        return fail(`unsupported type "${type}"`);
    }
  };
  const out = value(0);
  if (pos !== buf.length) fail('trailing data');
  return out;
}

/** A column value that may be serialized: parsed when it looks like it, else the text as it is. */
export function maybeUnserialize(text: string): PhpData {
  if (!/^(?:[aObidsN]:|N;)/.test(text)) return text;
  try {
    return phpUnserialize(text);
  } catch {
    return text;
  }
}
