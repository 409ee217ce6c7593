import { Engine } from 'php-parser';
import { badRequest } from '../../../kernel/index.ts';

/** A PHP literal as read: scalars, arrays (a list or a map) and `\Class::__set_state([...])` objects. */
export type PhpValue = null | boolean | number | string | PhpValue[] | PhpObject | PhpMap;
export interface PhpMap {
  [key: string]: PhpValue;
}
/** An exported object: its class name (without the leading backslash) and its properties. */
export interface PhpObject {
  __class: string;
  props: PhpMap;
}

/** Deepest nesting of arrays and objects read (a real class definition stays well below 60). */
export const MAX_DEPTH = 100;
/** Brackets open at once in the raw text: checked before parsing, since the parser itself recurses. */
const MAX_BRACKETS = 4 * MAX_DEPTH;

interface Node {
  kind: string;
  [key: string]: unknown;
}

const refuse = (file: string, what: string, node?: Node) =>
  badRequest(
    `${file}: ${what}${lineOf(node)}; a definition file must return one literal array or __set_state() export`,
    'classPath',
    'CLASS_FILE_NOT_LITERAL',
  );

function lineOf(node?: Node): string {
  const loc = node?.loc as { start?: { line?: number } } | undefined;
  return loc?.start?.line ? ` (line ${loc.start.line})` : '';
}

/** Counts nesting of ( and [ outside quoted strings and comments; a cheap guard against a parser stack overflow. */
function deepestBrackets(src: string): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < src.length; i++) {
    const c = src[i];
    if (c === "'" || c === '"') {
      for (i++; i < src.length && src[i] !== c; i++) if (src[i] === '\\') i++;
    } else if (c === '/' && src[i + 1] === '*') {
      const end = src.indexOf('*/', i + 2);
      i = end < 0 ? src.length : end + 1;
    } else if (c === '(' || c === '[') {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === ')' || c === ']') depth--;
  }
  return deepest;
}

/**
 * Reads what a PHP definition file returns, never running it: the file is parsed (php-parser) and
 * its one `return` expression is turned into data. Anything but literals, arrays and
 * `\Class::__set_state(array(...))` (a constant, a variable, a call, string interpolation, a second
 * statement) is refused with 400 CLASS_FILE_NOT_LITERAL; nesting beyond MAX_DEPTH with
 * CLASS_FILE_TOO_DEEP.
 */
export function readPhpLiteral(src: string, file: string): PhpValue {
  if (deepestBrackets(src) > MAX_BRACKETS)
    throw badRequest(`${file}: nested deeper than ${MAX_DEPTH} levels`, 'classPath', 'CLASS_FILE_TOO_DEEP');
  let program: Node;
  try {
    const engine = new Engine({
      parser: { php8: true, suppressErrors: false, extractDoc: false },
      ast: { withPositions: true },
    });
    program = engine.parseCode(src, file) as unknown as Node;
  } catch (err) {
    throw badRequest(`${file}: not valid PHP: ${(err as Error).message}`, 'classPath', 'CLASS_FILE_INVALID');
  }
  const statements = (program.children as Node[]).filter((s) => s.kind !== 'declare' && s.kind !== 'inline');
  const [only] = statements;
  if (statements.length !== 1 || only.kind !== 'return' || !only.expr)
    throw refuse(file, 'the file does more than return one value', statements[1] ?? only);
  return literalOf(only.expr as Node, file, 0);
}

// Recursion bounded by MAX_DEPTH (and the bracket count checked before parsing).
function literalOf(node: Node, file: string, depth: number): PhpValue {
  if (depth > MAX_DEPTH)
    throw badRequest(`${file}: nested deeper than ${MAX_DEPTH} levels`, 'classPath', 'CLASS_FILE_TOO_DEEP');
  switch (node.kind) {
    case 'string':
      return node.value as string;
    case 'number':
      return Number(node.value);
    case 'boolean':
      return node.value as boolean;
    case 'nullkeyword':
      return null;
    case 'unary': {
      const inner = node.what as Node;
      if ((node.type === '-' || node.type === '+') && inner.kind === 'number')
        return (node.type === '-' ? -1 : 1) * Number(inner.value);
      throw refuse(file, `an expression (${String(node.type)})`, node);
    }
    case 'array':
      return arrayOf(node, file, depth);
    case 'call': {
      const what = node.what as Node;
      const args = node.arguments as Node[];
      const cls = what.kind === 'staticlookup' ? (what.what as Node) : undefined;
      const method = what.kind === 'staticlookup' ? (what.offset as Node) : undefined;
      if (
        cls?.kind !== 'name' ||
        method?.kind !== 'identifier' ||
        method.name !== '__set_state' ||
        args.length !== 1 ||
        args[0].kind !== 'array'
      )
        throw refuse(file, 'a function call', node);
      const props = arrayOf(args[0], file, depth);
      if (Array.isArray(props)) throw refuse(file, '__set_state() of a list', node);
      return { __class: String(cls.name).replace(/^\\/, ''), props };
    }
    default:
      throw refuse(file, `a ${node.kind}`, node);
  }
}

function arrayOf(node: Node, file: string, depth: number): PhpValue[] | PhpMap {
  const items = node.items as Node[];
  const entries: Array<[string | number | undefined, PhpValue]> = [];
  for (const item of items) {
    if (item.kind !== 'entry') {
      entries.push([undefined, literalOf(item, file, depth + 1)]);
      continue;
    }
    if (item.byRef || item.unpack) throw refuse(file, 'a reference or spread', item);
    const key = item.key ? literalOf(item.key as Node, file, depth + 1) : undefined;
    if (key !== undefined && typeof key !== 'string' && typeof key !== 'number')
      throw refuse(file, 'an array key that is not a string or number', item);
    entries.push([key as string | number | undefined, literalOf(item.value as Node, file, depth + 1)]);
  }
  const isList = entries.every(([k], i) => k === undefined || k === i);
  if (isList) return entries.map(([, v]) => v);
  // A plain object with no prototype: keys from the file never reach Object.prototype.
  const map: PhpMap = Object.create(null);
  entries.forEach(([k, v], i) => {
    map[String(k ?? i)] = v;
  });
  return map;
}
