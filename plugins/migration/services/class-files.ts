import { open, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { badRequest } from '../../../kernel/index.ts';
import { type PhpMap, type PhpObject, type PhpValue, readPhpLiteral } from './php-literal.ts';

/** One data field of a Pimcore class, field collection or object brick, as its definition file has it. */
export interface PimcoreField {
  name: string;
  /** Pimcore's `fieldtype` (input, manyToOneRelation, ...): the exported one, else from the class name. */
  pimcoreType: string;
  title: string;
  mandatory: boolean;
  /** Inside a `localizedfields` container: one value per language. */
  translated: boolean;
  /** The definition's other settings (options, classes, allowedTypes, children of a block). */
  settings: PhpMap;
  /** Fields of a `block`. */
  children?: PimcoreField[];
}

export interface PimcoreDefinition {
  kind: 'class' | 'fieldcollection' | 'objectbrick';
  name: string;
  /** The class id (`object_store_<id>`); the key for field collections and bricks. */
  pimcoreId: string;
  title: string;
  fields: PimcoreField[];
  file: string;
}

/** Definition files read from one folder at most (a real installation has a few hundred). */
const MAX_FILES = 2000;
const NAME = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;

const isObject = (v: PhpValue | undefined): v is PhpObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as PhpObject).__class === 'string';
const text = (v: PhpValue | undefined) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** Pimcore's field type of a data definition: `fieldtype` when exported, else lcfirst of its class name. */
function fieldTypeOf(node: PhpObject): string {
  const exported = text(node.props.fieldtype);
  if (exported) return exported;
  const base = node.__class.split('\\').pop() ?? '';
  return base.charAt(0).toLowerCase() + base.slice(1);
}

const isLayout = (node: PhpObject) =>
  node.props.datatype === 'layout' || node.__class.includes('\\ClassDefinition\\Layout\\');

/**
 * The data fields under a layout tree, in order: layouts (panels, tabs, regions) are walked through,
 * `localizedfields` gives its children as translated fields, a `block` keeps its own. Iterative, with
 * the nesting the file reader already bounded.
 */
function fieldsOf(root: PhpValue | undefined, file: string): PimcoreField[] {
  const out: PimcoreField[] = [];
  const stack: Array<{ node: PhpValue; translated: boolean; into: PimcoreField[] }> = [];
  const pushChildren = (node: PhpObject, translated: boolean, into: PimcoreField[]) => {
    const children = node.props.children;
    if (!Array.isArray(children)) return;
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], translated, into });
  };
  if (isObject(root)) pushChildren(root, false, out);
  while (stack.length) {
    const { node, translated, into } = stack.pop()!;
    if (!isObject(node)) continue;
    if (isLayout(node)) {
      pushChildren(node, translated, into);
      continue;
    }
    const pimcoreType = fieldTypeOf(node);
    if (pimcoreType === 'localizedfields') {
      pushChildren(node, true, into);
      continue;
    }
    const name = text(node.props.name);
    if (!NAME.test(name))
      throw badRequest(`${file}: a field name "${name.slice(0, 80)}" is not a name`, 'classPath', 'CLASS_FILE_INVALID');
    const field: PimcoreField = {
      name,
      pimcoreType,
      title: text(node.props.title),
      mandatory: node.props.mandatory === true,
      translated,
      settings: node.props,
    };
    if (pimcoreType === 'block') {
      field.children = [];
      pushChildren(node, translated, field.children);
    }
    into.push(field);
  }
  return out;
}

async function readLimited(file: string, maxBytes: number): Promise<string> {
  const info = await stat(file);
  if (info.size > maxBytes)
    throw badRequest(
      `${path.basename(file)} is ${info.size} bytes; class files over ${maxBytes} bytes are not read`,
      'classPath',
      'CLASS_FILE_TOO_LARGE',
    );
  // Read at most the limit, whatever the file grew to since.
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(Math.min(info.size, maxBytes) + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > maxBytes)
      throw badRequest(`${path.basename(file)} is larger than ${maxBytes} bytes`, 'classPath', 'CLASS_FILE_TOO_LARGE');
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

async function listPhp(folder: string, pattern: RegExp): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(folder);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  const files = names.filter((n) => pattern.test(n)).sort();
  if (files.length > MAX_FILES)
    throw badRequest(`${folder} holds more than ${MAX_FILES} definition files`, 'classPath', 'CLASS_PATH_TOO_LARGE');
  return files;
}

/**
 * Reads a folder laid out like Pimcore's `var/classes`: `definition_<Name>.php`,
 * `fieldcollections/<Name>.php` and `objectbricks/<Name>.php`. Nothing is executed (php-literal.ts).
 */
export async function readClassFolder(classPath: string, maxBytes: number): Promise<PimcoreDefinition[]> {
  try {
    if (!(await stat(classPath)).isDirectory()) throw new Error('not a folder');
  } catch {
    throw badRequest(`classPath ${classPath} is not a readable folder`, 'classPath', 'CLASS_PATH_UNREADABLE');
  }
  const out: PimcoreDefinition[] = [];
  const read = async (file: string) => readPhpLiteral(await readLimited(file, maxBytes), path.basename(file));
  for (const name of await listPhp(classPath, /^definition_[A-Za-z][A-Za-z0-9_]*\.php$/)) {
    const file = path.join(classPath, name);
    const value = await read(file);
    if (!isObject(value))
      throw badRequest(`${name}: does not return a class definition`, 'classPath', 'CLASS_FILE_INVALID');
    const className = text(value.props.name) || name.slice('definition_'.length, -4);
    out.push({
      kind: 'class',
      name: className,
      pimcoreId: text(value.props.id) || className,
      title: text(value.props.title),
      fields: fieldsOf(value.props.layoutDefinitions, name),
      file: name,
    });
  }
  for (const [kind, sub] of [
    ['fieldcollection', 'fieldcollections'],
    ['objectbrick', 'objectbricks'],
  ] as const) {
    for (const name of await listPhp(path.join(classPath, sub), /^[A-Za-z][A-Za-z0-9_]*\.php$/)) {
      const value = await read(path.join(classPath, sub, name));
      if (!isObject(value))
        throw badRequest(`${sub}/${name}: does not return a definition`, 'classPath', 'CLASS_FILE_INVALID');
      const key = text(value.props.key) || name.slice(0, -4);
      out.push({
        kind,
        name: key,
        pimcoreId: key,
        title: text(value.props.title),
        fields: fieldsOf(value.props.layoutDefinitions, `${sub}/${name}`),
        file: `${sub}/${name}`,
      });
    }
  }
  for (const d of out)
    if (!NAME.test(d.name))
      throw badRequest(`${d.file}: "${d.name.slice(0, 80)}" is not a class name`, 'classPath', 'CLASS_FILE_INVALID');
  return out;
}
