import { badRequest, isHttpError } from '../../../kernel/index.ts';
import type { ContentDeps } from './deps.ts';
import { type ContentNode, walkNodes } from './node-tree.ts';
import { fillTemplate, type BoundItem } from './data-binding-template.ts';
import { REPEATED_TEMPLATE, type RepeatingNode } from './render.ts';
import { replaceAt, type TreeExpander } from './tree-expansion.ts';

/**
 * Data bindings to classes (our design): a node with `props.dataBinding = { classId, filter?, orderBy?,
 * dir?, limit?, locale? }` shows the class's published objects, its children repeated once per object
 * as the template of one item, with `{{field}}` placeholders filled from that object
 * (data-binding-template.ts). Checked when a page or snippet is saved; expanded before rendering, one
 * read of the data plugin's public read path (and its cache) per binding.
 */
export interface DataBinding {
  classId: string;
  filter: Array<{ field: string; op: string; value?: unknown }>;
  orderBy?: string;
  dir: 'asc' | 'desc';
  limit: number;
  locale?: string;
}

type DataObjects = NonNullable<ContentDeps['dataObjects']>;
type Answer = Awaited<ReturnType<DataObjects['publishedPageAnswer']>>;

export const DATA_BINDING_LIMITS = {
  /** Bindings per page or snippet: each is one read when the page is drawn. */
  perTree: 20,
  filters: 5,
  maxLimit: 100,
  defaultLimit: 10,
  /** Nodes one bound block may expand to; items past it are left out. */
  expandedNodes: 10_000,
} as const;

/** The operators of the public data query (and of /client/v1/data filters). */
export const DATA_BINDING_OPS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'exists'];
const OPS = new Set(DATA_BINDING_OPS);
const KEYS = new Set(['classId', 'filter', 'orderBy', 'dir', 'limit', 'locale']);
const FILTER_KEYS = new Set(['field', 'op', 'value']);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;
const LOCALE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The binding's shape (no class lookup); throws a 400 naming `${at}.<member>`. */
export function parseDataBinding(value: unknown, at: string): DataBinding {
  if (!isObject(value)) throw badRequest('A data binding must be an object', at);
  for (const key of Object.keys(value))
    if (!KEYS.has(key)) throw badRequest(`Unknown data binding member "${key.slice(0, 64)}"`, `${at}.${key}`);
  const { classId, filter = [], orderBy, dir = 'asc', limit = DATA_BINDING_LIMITS.defaultLimit, locale } = value;
  if (typeof classId !== 'string' || !UUID.test(classId))
    throw badRequest('classId must be the id of a data class', `${at}.classId`);
  if (!Array.isArray(filter) || filter.length > DATA_BINDING_LIMITS.filters)
    throw badRequest(`filter must be a list of at most ${DATA_BINDING_LIMITS.filters} conditions`, `${at}.filter`);
  const filters = filter.map((f, i) => {
    const fat = `${at}.filter.${i}`;
    if (!isObject(f)) throw badRequest('A condition is { field, op, value }', fat);
    for (const key of Object.keys(f))
      if (!FILTER_KEYS.has(key)) throw badRequest(`Unknown condition member "${key.slice(0, 64)}"`, `${fat}.${key}`);
    if (typeof f.field !== 'string' || !NAME.test(f.field)) throw badRequest('field must name a field', `${fat}.field`);
    if (typeof f.op !== 'string' || !OPS.has(f.op))
      throw badRequest(`op must be one of ${DATA_BINDING_OPS.join(', ')}`, `${fat}.op`);
    return { field: f.field, op: f.op, value: f.value };
  });
  if (orderBy !== undefined && (typeof orderBy !== 'string' || !NAME.test(orderBy)))
    throw badRequest('orderBy must name a field', `${at}.orderBy`);
  if (dir !== 'asc' && dir !== 'desc') throw badRequest('dir must be asc or desc', `${at}.dir`);
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > DATA_BINDING_LIMITS.maxLimit)
    throw badRequest(`limit must be a whole number from 1 to ${DATA_BINDING_LIMITS.maxLimit}`, `${at}.limit`);
  if (locale !== undefined && (typeof locale !== 'string' || !LOCALE.test(locale)))
    throw badRequest('locale must look like en, de or pt-BR', `${at}.locale`);
  return { classId, filter: filters, orderBy, dir, limit: limit as number, locale: locale as string | undefined };
}

/** The public data query a binding stands for (the page's locale unless the binding names one). */
function queryOf(binding: DataBinding, className: string, locale: string | null) {
  const on = binding.locale ?? locale ?? undefined;
  return {
    className,
    filters: binding.filter,
    orderBy: binding.orderBy ? [{ field: binding.orderBy, direction: binding.dir }] : undefined,
    limit: binding.limit,
    ...(on ? { locale: on } : {}),
  };
}

/** The data plugin names its own query's members; a binding's are `filter.N.*`, `orderBy`, `locale`. */
function bindingField(at: string, field: string | undefined): string {
  if (!field) return at;
  const filter = /^filters\.(\d+)(\.\w+)?$/.exec(field);
  if (filter) return `${at}.filter.${filter[1]}${filter[2] ?? ''}`;
  if (field.startsWith('orderBy')) return `${at}.orderBy`;
  if (field === 'locale') return `${at}.locale`;
  return at;
}

/**
 * Checks every data binding of a tree being saved: the shape, at most `perTree` bindings, none inside
 * another's template (one read per binding, never one per item), and, when the data plugin is loaded,
 * that the class exists and the query is one its public read path accepts. Without the data plugin
 * the shape is checked and the binding is stored (it renders nothing until the plugin is loaded).
 */
export async function checkDataBindings(
  dataObjects: DataObjects | undefined,
  tree: ContentNode,
  field = 'content',
): Promise<void> {
  const found: Array<{ path: string; binding: DataBinding }> = [];
  walkNodes(tree, field, (node, path) => {
    if (node.props?.dataBinding === undefined) return;
    const at = `${path}.props.dataBinding`;
    const outer = found.find((f) => path.startsWith(`${f.path}.`));
    if (outer) throw badRequest('A data binding cannot sit inside the template of another binding', at);
    found.push({ path, binding: parseDataBinding(node.props.dataBinding, at) });
    if (found.length > DATA_BINDING_LIMITS.perTree)
      throw badRequest(`At most ${DATA_BINDING_LIMITS.perTree} data bindings per page`, at);
  });
  if (!dataObjects) return;
  for (const { path, binding } of found) {
    const at = `${path}.props.dataBinding`;
    const cls = await dataObjects.classById(binding.classId);
    if (!cls) throw badRequest('No data class has this id', `${at}.classId`);
    try {
      await dataObjects.checkPublishedQuery(queryOf(binding, cls.name, null));
    } catch (err) {
      if (isHttpError(err) && err.statusCode === 400) throw badRequest(err.message, bindingField(at, err.field));
      throw err;
    }
  }
}

/** Parsed objects of an answer, and the filled templates made from them (by template text). */
interface AnswerUse {
  items: BoundItem[];
  filled: Map<string, ContentNode[]>;
}
const FILLED_PER_ANSWER = 50;

/**
 * The expander of data bindings. A bound node keeps its element and props (without the binding) and
 * gets its template repeated per published object; a binding that cannot be read (data plugin not
 * loaded, class gone, a field removed since the save) renders the node empty. Bindings inside a
 * bound node's template are not read (the save refuses them). The data plugin answers the same
 * object while its read cache holds an answer, so the parsed objects and the filled template are
 * kept beside it (WeakMap) and a repeated request parses and copies nothing.
 */
export function dataBindingExpander(kernel: Pick<ContentDeps, 'dataObjects'>): TreeExpander {
  const uses = new WeakMap<Answer, AnswerUse>();

  const useOf = (answer: Answer): AnswerUse => {
    let use = uses.get(answer);
    if (!use) {
      use = { items: (JSON.parse(answer.body) as { objects: BoundItem[] }).objects, filled: new Map() };
      uses.set(answer, use);
    }
    return use;
  };

  const itemsFor = async (value: unknown, locale: string | null, staff: boolean): Promise<Answer | null> => {
    const data = kernel.dataObjects;
    if (!data) return null;
    let binding: DataBinding;
    try {
      binding = parseDataBinding(value, 'dataBinding');
    } catch {
      return null; // an unsaved tree in the canvas may hold a half-made binding
    }
    const cls = await data.classById(binding.classId);
    if (!cls) return null;
    try {
      return await data.publishedPageAnswer(queryOf(binding, cls.name, locale), { primary: staff });
    } catch (err) {
      if (isHttpError(err) && err.statusCode < 500) return null;
      throw err;
    }
  };

  return async (tree, context) => {
    if (!hasBinding(tree)) return tree;
    const bound: Array<{ indexes: number[]; node: ContentNode }> = [];
    const stack: Array<{ node: ContentNode; indexes: number[] }> = [{ node: tree, indexes: [] }];
    while (stack.length) {
      const { node, indexes } = stack.pop()!;
      if (node.props?.dataBinding !== undefined) {
        if (bound.length < DATA_BINDING_LIMITS.perTree) bound.push({ indexes, node });
        continue; // its children are the template, never read themselves
      }
      const children = node.children ?? [];
      for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], indexes: [...indexes, i] });
    }
    if (bound.length === 0) return tree;
    const answers = await Promise.all(
      bound.map((b) => itemsFor(b.node.props!.dataBinding, context.locale, context.staff === true)),
    );
    let out = tree;
    for (const [i, { indexes, node }] of bound.entries()) {
      const template = node.children ?? [];
      const { dataBinding: _, ...props } = node.props!;
      const answer = answers[i];
      let children: ContentNode[] = [];
      if (answer && template.length > 0) {
        const use = useOf(answer);
        const key = JSON.stringify(template);
        let filled = use.filled.get(key);
        if (!filled) {
          filled = fillTemplate(template, use.items, DATA_BINDING_LIMITS.expandedNodes);
          if (use.filled.size >= FILLED_PER_ANSWER) use.filled.clear();
          use.filled.set(key, filled);
        }
        children = filled;
      }
      const expanded: RepeatingNode = { ...node, props, children };
      expanded[REPEATED_TEMPLATE] = Math.max(1, template.length);
      out = replaceAt(out, indexes, expanded);
    }
    return out;
  };
}

/** Whether any node of the tree is bound: the common case (none) costs one walk without copies. */
function hasBinding(tree: ContentNode): boolean {
  const stack = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    if (node.props?.dataBinding !== undefined) return true;
    if (node.children) for (const child of node.children) stack.push(child);
  }
  return false;
}
