import { badRequest } from '../../../kernel/index.ts';
import type { ContentDeps } from './deps.ts';
import { type ContentNode, walkNodes } from './node-tree.ts';
import { FORM_ELEMENT, type FormElementNode } from './render.ts';
import { type ExpansionContext, markExpanded, nodePaths, replaceAt, type TreeExpander } from './tree-expansion.ts';

/**
 * The form block (our design beside the spec's public form submit): a page node
 * `{ type: 'form', props: { classId, notify?: { to, subject? }, submitLabel?, successMessage?, className? } }`
 * becomes an HTML form for the class's fields, posted by the form script (form-script.ts) as JSON to
 * `POST /public/forms/:classId/submit`. The class is read through the data plugin's `dataObjects`
 * port (`classById`, its in-memory definitions): this plugin never imports the data plugin's files.
 */

type DataObjects = NonNullable<ContentDeps['dataObjects']>;
type ClassSummary = NonNullable<Awaited<ReturnType<DataObjects['classById']>>>;
type Field = ClassSummary['fields'][number];

/** Where the form script is served (routes/public.ts); the page document loads it when a form is shown. */
export const FORM_SCRIPT_PATH = '/public/content/form-block.js';

export const FORM_LIMITS = {
  /** Form blocks per tree (page, snippet, layout region); a drawn one past it stays an empty container. */
  perTree: 20,
  /** Longest submit label and success message. */
  textChars: 200,
} as const;

/** Field kinds drawn as a control; any other (relation, asset, json, array, component, richtext) is left out. */
export const FORM_FIELD_KINDS = ['text', 'slug', 'markdown', 'number', 'boolean', 'date', 'datetime', 'select'];
const KINDS = new Set(FORM_FIELD_KINDS);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A text field named like an e-mail address (`email`, `contactEmail`, `e_mail`) gets `type="email"`. */
const EMAIL_NAME = /e_?mail$/i;
/** The data plugin's longest `text` value. */
const TEXT_MAX = 600;

/** A node the renderer draws as a form element (never made from a stored tree: the symbol). */
function el(type: string, props: Record<string, unknown> = {}, children: ContentNode[] = [], text?: string) {
  const node: FormElementNode = { type, props, children, ...(text !== undefined ? { text } : {}) };
  node[FORM_ELEMENT] = true;
  return node;
}

const shortText = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() ? value.trim().slice(0, FORM_LIMITS.textChars) : undefined;

/** Whether a node is a form block the expander draws: a `form` with a `classId`, not a gateway submit form. */
const isFormBlock = (node: ContentNode): boolean =>
  node.type === 'form' && node.props?.classId !== undefined && node.props.binding === undefined;

/** The label's visible text and required mark: `Name *` (the mark hidden from assistive technology). */
function labelText(field: Field, required: boolean): ContentNode[] {
  const text: ContentNode[] = [el('span', { 'data-cms-form-label': '' }, [], field.label || field.name)];
  if (required) text.push(el('span', { className: 'cms-form-required', 'aria-hidden': 'true' }, [], ' *'));
  return text;
}

/** The control of one field, inside its label (an implicit label: no ids to keep unique on the page). */
function control(field: Field): ContentNode | null {
  const kind = field.type;
  if (!KINDS.has(kind)) return null;
  const required = field.required === true;
  const rules = field.validation ?? {};
  const base: Record<string, unknown> = { name: field.name, required: required && kind !== 'boolean' };
  const wrap = (input: ContentNode, className = 'cms-form-field') =>
    el('div', { className }, [el('label', {}, [...labelText(field, required && kind !== 'boolean'), input])]);
  switch (kind) {
    case 'boolean':
      // Always sent (true or false): a required boolean is satisfied by either.
      return el('div', { className: 'cms-form-field cms-form-check' }, [
        el('label', {}, [
          el('input', { type: 'checkbox', name: field.name, value: 'true' }),
          ...labelText(field, false),
        ]),
      ]);
    case 'markdown':
      return wrap(el('textarea', { ...base, maxlength: numberText(rules.maxLength) }));
    case 'number':
      return wrap(
        el('input', {
          ...base,
          type: 'number',
          step: 'any',
          inputmode: 'decimal',
          min: numberText(rules.min),
          max: numberText(rules.max),
        }),
      );
    case 'date':
      return wrap(el('input', { ...base, type: 'date' }));
    case 'datetime':
      return wrap(el('input', { ...base, type: 'datetime-local' }));
    case 'select': {
      const options = (field.options ?? []).map((o) => el('option', { value: o }, [], o));
      const choose = el('option', { value: '' }, [], 'Choose…');
      return wrap(el('select', base, [choose, ...options]));
    }
    default: {
      // text, slug
      const email = kind === 'text' && EMAIL_NAME.test(field.name);
      const max = kind === 'text' ? Math.min(rules.maxLength ?? TEXT_MAX, TEXT_MAX) : 200;
      return wrap(
        el('input', {
          ...base,
          type: email ? 'email' : 'text',
          autocomplete: email ? 'email' : null,
          maxlength: String(max),
          minlength: numberText(rules.minLength),
        }),
      );
    }
  }
}

const numberText = (value: unknown): string | null =>
  typeof value === 'number' && Number.isFinite(value) ? String(value) : null;

/**
 * The form a block stands for: a labelled control per field of a drawn kind, in the class's order,
 * a submit button the script enables (without script nothing is sent: the button stays disabled and a
 * `<noscript>` note says why), and a live region for the outcome. The class id, the page's locale and
 * the saved `notify` block ride on the form for the script; labels are text nodes, escaped by the
 * renderer like any text.
 */
export function formMarkup(node: ContentNode, cls: ClassSummary, context: ExpansionContext): ContentNode {
  const props = node.props ?? {};
  const fields = cls.fields.map(control).filter((c): c is ContentNode => c !== null);
  const notify = props.notify !== undefined && props.notify !== null ? JSON.stringify(props.notify) : null;
  const className = ['cms-form', shortText(props.className)].filter(Boolean).join(' ');
  return markExpanded(
    el(
      'form',
      {
        className,
        'aria-label': cls.label || cls.name,
        'data-cms-form': cls.id,
        'data-cms-form-locale': context.locale,
        'data-cms-form-notify': notify,
        'data-cms-form-success': shortText(props.successMessage) ?? 'Thank you, your message was sent.',
      },
      [
        ...fields,
        el('noscript', {}, [], 'This form needs JavaScript to be sent.'),
        el('div', { className: 'cms-form-actions' }, [
          el('button', { type: 'submit', disabled: true }, [], shortText(props.submitLabel) ?? 'Send'),
        ]),
        el('p', { className: 'cms-form-status', role: 'status', 'aria-live': 'polite', 'data-cms-form-status': '' }),
      ],
    ),
  );
}

/** Whether a tree holds a form block: the common case (none) costs one walk without copies. */
function hasFormBlock(tree: ContentNode): boolean {
  const stack = [tree];
  while (stack.length) {
    const node = stack.pop()!;
    if (isFormBlock(node)) return true;
    if (node.children) for (const child of node.children) stack.push(child);
  }
  return false;
}

/**
 * The form block's expander: each form block becomes its class's form (`formMarkup`) and the page
 * loads the form script (`context.scripts`). A block whose class is unknown or gone, or shown without
 * the data plugin, becomes an empty hidden container: visitors see nothing, and nothing says why.
 */
export function formBlockExpander(kernel: Pick<ContentDeps, 'dataObjects'>): TreeExpander {
  return async (tree, context) => {
    if (!hasFormBlock(tree)) return tree;
    const paths = nodePaths(tree, isFormBlock);
    let out = tree;
    for (const [i, path] of paths.entries()) {
      const node = path.reduce<ContentNode>((n, at) => n.children![at], out);
      const classId = node.props?.classId;
      const cls =
        i < FORM_LIMITS.perTree && kernel.dataObjects && typeof classId === 'string' && UUID.test(classId)
          ? await kernel.dataObjects.classById(classId)
          : null;
      if (cls) context.scripts?.add(FORM_SCRIPT_PATH);
      out = replaceAt(
        out,
        path,
        cls ? formMarkup(node, cls, context) : markExpanded({ type: 'div', props: { hidden: true } }),
      );
    }
    return out;
  };
}

/**
 * Checks the form blocks of a tree being saved, like data bindings (data-bindings.ts): `classId`
 * must be a class id (400 naming `….props.classId`), at most `perTree` blocks, and, when the data
 * plugin is loaded, a class that exists. Without the data plugin the shape is checked and the block
 * is stored (it shows nothing until the plugin is loaded).
 */
export async function checkFormBlocks(
  dataObjects: DataObjects | undefined,
  tree: ContentNode,
  field = 'content',
): Promise<void> {
  const found: Array<{ at: string; classId: string }> = [];
  walkNodes(tree, field, (node, path) => {
    if (node.type !== 'form' || node.props?.classId === undefined) return;
    const at = `${path}.props.classId`;
    const classId = node.props.classId;
    if (typeof classId !== 'string' || !UUID.test(classId))
      throw badRequest('classId must be the id of a data class', at);
    found.push({ at, classId });
    if (found.length > FORM_LIMITS.perTree) throw badRequest(`At most ${FORM_LIMITS.perTree} forms per page`, at);
  });
  if (!dataObjects) return;
  for (const { at, classId } of found)
    if (!(await dataObjects.classById(classId))) throw badRequest('No data class has this id', at);
}
