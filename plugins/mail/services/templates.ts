import {
  type Clock,
  type Db,
  type Logger,
  badRequest,
  conflict,
  isUniqueViolation,
  notFound,
} from '../../../kernel/index.ts';
import type { MailRenderer } from '../ports.ts';
import type { MailTemplateRow, MailTemplateStore, MailTemplateWrite } from '../store/template-store.ts';
import { BUILT_IN_TEMPLATES } from './built-in-templates.ts';

const VARIABLE = /\{\{\s*([a-zA-Z][a-zA-Z0-9_]{0,63})\s*\}\}/g;
const KEY = /^[a-z][a-z0-9-]{0,63}$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: line breaks and controls never reach a subject header
const LINE_BREAKS = /[\u0000-\u001f\u007f]+/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: see above
const HAS_CONTROL = /[\u0000-\u001f\u007f]/;
/** Templates read by the sender are kept this long per process (a write in this process drops them). */
const CACHE_MS = 5_000;
const MAX_NODES = 20_000;

export interface RenderedMail {
  subject: string;
  html: string | undefined;
  text: string;
}

export interface TemplateInput {
  key?: string;
  name?: string;
  subject?: string;
  html?: unknown;
  text?: string;
}

/**
 * Characters a filled part may grow to: a template of thousands of placeholders filled with long
 * values (form fields) would otherwise make a mail of hundreds of megabytes.
 */
export const MAX_FILLED_CHARS = 1_000_000;

/** What is left of a mail's character budget while its parts are filled. */
interface FillBudget {
  left: number;
}

/**
 * `{{name}}` replaced by the variable's value (unknown names by nothing); no escaping: the caller's
 * part decides. Values stop being filled in once the budget is spent (`exhausted` is set on it).
 */
export function fillText(
  template: string,
  variables: Record<string, string>,
  budget: FillBudget & { exhausted?: boolean } = { left: MAX_FILLED_CHARS },
): string {
  budget.left -= template.length;
  const out = template.replace(VARIABLE, (whole: string, name: string) => {
    const value = Object.hasOwn(variables, name) ? String(variables[name] ?? '') : '';
    if (budget.exhausted || value.length - whole.length > budget.left) {
      budget.exhausted = true;
      return '';
    }
    budget.left -= value.length - whole.length;
    return value;
  });
  return out;
}

/**
 * A copy of a node tree with the variables filled into texts and string props. Walked iteratively:
 * the tree is stored content. The renderer escapes every text and attribute afterwards, so a value
 * (a form field) cannot add markup.
 */
export function fillTree(tree: unknown, variables: Record<string, string>): unknown {
  const budget: FillBudget & { exhausted?: boolean } = { left: MAX_FILLED_CHARS };
  const fill = (v: unknown): unknown => {
    if (typeof v !== 'string') return v;
    const filled = fillText(v, variables, budget);
    // The HTML part is left out (the mail goes as text) rather than sent with values missing.
    if (budget.exhausted) throw badRequest('The filled HTML part is larger than 1,000,000 characters', 'html');
    return filled;
  };
  const root: { value: unknown } = { value: undefined };
  const stack: Array<{ from: unknown; put: (v: unknown) => void }> = [{ from: tree, put: (v) => (root.value = v) }];
  let count = 0;
  while (stack.length) {
    const { from, put } = stack.pop()!;
    if (++count > MAX_NODES) throw badRequest('The template has too many parts', 'html');
    if (Array.isArray(from)) {
      const out: unknown[] = new Array(from.length);
      put(out);
      from.forEach((item, i) => {
        stack.push({ from: item, put: (v) => (out[i] = v) });
      });
    } else if (typeof from === 'object' && from !== null) {
      const out: Record<string, unknown> = {};
      put(out);
      for (const [k, v] of Object.entries(from)) stack.push({ from: v, put: (x) => (out[k] = x) });
    } else put(fill(from));
  }
  return root.value;
}

/** Mail templates: CRUD, rendering with variables, and the built-in ones (seeded, editable, removable). */
export class MailTemplateService {
  private readonly cache = new Map<string, { at: number; row: MailTemplateRow | undefined }>();

  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      log: Logger;
      store: MailTemplateStore;
      renderers: readonly MailRenderer[];
      /** Tells every process (this one included) to drop what it keeps. */
      announce?: () => void;
    },
  ) {}

  /** Drops what this process keeps (a change notice from any process). */
  drop(): void {
    this.cache.clear();
  }

  private get renderer(): MailRenderer | undefined {
    return this.deps.renderers[0];
  }

  /** Adds the built-in templates that are missing (at start; edits and deletions stay as they are). */
  seed(): Promise<void> {
    return this.deps.store.seed(BUILT_IN_TEMPLATES.map((t) => ({ ...t, html: this.renderer ? t.html : undefined })));
  }

  async list() {
    return (await this.deps.store.list()).map(dto);
  }

  async get(id: string) {
    return dto(await this.row(id));
  }

  async create(input: Required<Pick<TemplateInput, 'key' | 'name' | 'subject' | 'text'>> & TemplateInput) {
    const fields = this.check(input);
    try {
      const row = await this.deps.db.transaction((trx) => this.deps.store.insert(fields, this.deps.clock.now(), trx));
      this.cache.clear();
      this.deps.announce?.();
      return dto(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('A mail template with this key exists', 'UNIQUE_VIOLATION', 'key');
      throw err;
    }
  }

  async update(id: string, input: TemplateInput) {
    const fields = this.check(input);
    try {
      const row = await this.deps.db.transaction((trx) =>
        this.deps.store.update(id, fields, this.deps.clock.now(), trx),
      );
      if (!row) throw notFound('Mail template not found', 'MAIL_TEMPLATE_NOT_FOUND');
      this.cache.clear();
      this.deps.announce?.();
      return dto(row);
    } catch (err) {
      if (isUniqueViolation(err)) throw conflict('A mail template with this key exists', 'UNIQUE_VIOLATION', 'key');
      throw err;
    }
  }

  async remove(id: string): Promise<void> {
    const row = await this.deps.db.transaction((trx) => this.deps.store.remove(id, trx));
    if (!row) throw notFound('Mail template not found', 'MAIL_TEMPLATE_NOT_FOUND');
    this.cache.clear();
    this.deps.announce?.();
  }

  /** `POST /mail-templates/:id/render`: the final subject, HTML document and text. */
  async render(id: string, variables: Record<string, string>): Promise<RenderedMail> {
    return this.renderRow(await this.row(id), variables);
  }

  /** The mail of template `key` with `variables`, or undefined when no such template exists. */
  async renderByKey(key: string, variables: Record<string, string>): Promise<RenderedMail | undefined> {
    const now = Date.now();
    let hit = this.cache.get(key);
    if (!hit || now - hit.at >= CACHE_MS) {
      hit = { at: now, row: await this.deps.store.byKey(key) };
      this.cache.set(key, hit);
    }
    if (!hit.row) return undefined;
    try {
      return await this.renderRow(hit.row, variables);
    } catch (err) {
      // A value that makes the HTML invalid (say, a script URL in a link) sends the text part alone.
      this.deps.log.warn({ err, template: key }, 'mail template HTML could not be rendered: text only');
      return { ...this.renderText(hit.row, variables), html: undefined };
    }
  }

  private renderText(row: MailTemplateRow, variables: Record<string, string>) {
    const subject = fillText(row.subject, variables).replace(LINE_BREAKS, ' ').trim().slice(0, 998);
    const budget: FillBudget & { exhausted?: boolean } = { left: MAX_FILLED_CHARS };
    const text = fillText(row.text, variables, budget);
    // Past the budget the text says so: the mail still goes (a form's notification is not lost).
    return {
      subject,
      text: budget.exhausted
        ? `${text}\n\n[Some values were left out: this mail would have been longer than 1,000,000 characters.]\n`
        : text,
    };
  }

  private async renderRow(row: MailTemplateRow, variables: Record<string, string>): Promise<RenderedMail> {
    const { subject, text } = this.renderText(row, variables);
    const html =
      row.html && this.renderer ? await this.renderer.renderEmail(subject, fillTree(row.html, variables)) : undefined;
    return { subject, html, text };
  }

  private async row(id: string): Promise<MailTemplateRow> {
    const row = await this.deps.store.byId(id);
    if (!row) throw notFound('Mail template not found', 'MAIL_TEMPLATE_NOT_FOUND');
    return row;
  }

  private check(input: TemplateInput): MailTemplateWrite {
    const out: MailTemplateWrite = {};
    if (input.key !== undefined) {
      if (!KEY.test(input.key)) throw badRequest('key must be 1-64 lower-case letters, digits and dashes', 'key');
      out.key = input.key;
    }
    if (input.name !== undefined) {
      out.name = input.name.trim();
      if (!out.name || HAS_CONTROL.test(out.name)) throw badRequest('name must be one non-blank line', 'name');
    }
    if (input.subject !== undefined) {
      if (HAS_CONTROL.test(input.subject)) throw badRequest('subject must be one line', 'subject');
      out.subject = input.subject;
    }
    if (input.text !== undefined) out.text = input.text;
    if (input.html !== undefined) {
      if (input.html !== null) {
        if (!this.renderer)
          throw badRequest('An HTML part needs the content plugin (its e-mail renderer); send text only', 'html');
        this.renderer.check(input.html, 'html');
      }
      out.html = input.html;
    }
    return out;
  }
}

function dto(row: MailTemplateRow) {
  return {
    id: row.id,
    key: row.key,
    name: row.name,
    subject: row.subject,
    html: row.html ?? null,
    text: row.text,
    builtIn: row.built_in,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
