import { Value } from '@sinclair/typebox/value';
import { randomUUID } from 'node:crypto';
import {
  type Actor,
  badRequest,
  type Clock,
  conflict,
  forbidden,
  HttpError,
  notFound,
  type PermissionRegistry,
  type ServiceMap,
  type UserActor,
} from '../../../kernel/index.ts';
import type { AiContentTarget, AiWebsiteStructure } from '../ports.ts';
import type { GeneratedEntry, GeneratedStore } from '../store/generated.ts';
import type { AiCallSlots } from './calls.ts';
import type { ChatAnswer, ChatMessage, ProviderClient } from './provider.ts';
import type { AiSettingsService } from './settings.ts';
import { MAX_STRUCTURE_PAGES, structureJsonSchema, WebsiteStructure } from './structure-schema.ts';

/** Nodes one generated page may have (the editor's own cap is larger; a skeleton needs far fewer). */
export const MAX_GENERATED_NODES = 5_000;
/** Characters of page text sent to the provider in one translation request. */
export const TRANSLATION_CHUNK_CHARS = 6_000;

export interface GenerateInput {
  prompt: string;
  system?: string;
  maxOutputTokens?: number;
}

export interface Generated {
  id: string;
  text: string;
  model: string;
  usage: { inputTokens: number; outputTokens: number };
}

const invalidOutput = (problems: string[]) =>
  new HttpError(
    502,
    'AI_INVALID_OUTPUT',
    `The AI provider's answer was unusable twice: ${problems.slice(0, 5).join('; ')}`.slice(0, 1000),
  );

function countNodes(tree: unknown, cap: number): number {
  const stack = [tree];
  let count = 0;
  while (stack.length && count <= cap) {
    const n = stack.pop() as { children?: unknown } | null;
    count++;
    if (n && typeof n === 'object' && Array.isArray(n.children)) stack.push(...n.children);
  }
  return count;
}

/** The file extension of PNG, JPEG or WebP bytes (by their magic numbers), else undefined. */
function imageExtension(b: Buffer): string | undefined {
  if (b.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (b.subarray(0, 3).equals(Buffer.from([0xff, 0xd8, 0xff]))) return 'jpg';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF' && b.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return undefined;
}

/** Text props a person reads, translated with the node texts; every other prop stays as it is. */
const TEXT_PROPS = ['alt', 'title', 'placeholder', 'aria-label', 'label'];

interface TextSlot {
  get(): string;
  set(value: string): void;
}

/** Every translatable text of a tree (iteratively), as slots into `tree` itself. */
function textSlots(tree: unknown): TextSlot[] {
  const slots: TextSlot[] = [];
  const stack = [tree];
  while (stack.length) {
    const n = stack.pop() as { text?: unknown; props?: Record<string, unknown>; children?: unknown[] } | null;
    if (!n || typeof n !== 'object') continue;
    if (typeof n.text === 'string' && n.text.trim())
      slots.push({
        get: () => n.text as string,
        set: (v) => {
          n.text = v;
        },
      });
    const props = n.props;
    if (props && typeof props === 'object')
      for (const name of TEXT_PROPS)
        if (Object.hasOwn(props, name) && typeof props[name] === 'string' && (props[name] as string).trim())
          slots.push({
            get: () => props[name] as string,
            set: (v) => {
              props[name] = v;
            },
          });
    if (Array.isArray(n.children)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return slots;
}

/**
 * Text generation, website structures and translations through the configured provider: each call
 * in a slot (AI_BUSY beyond), each result kept for `/ai/generated`. Generation is not audited.
 */
export class GenerationService {
  constructor(
    private readonly deps: {
      settings: AiSettingsService;
      provider: ProviderClient;
      slots: AiCallSlots;
      generated: GeneratedStore;
      contentTargets: readonly AiContentTarget[];
      assetLibrary: ServiceMap['assetLibrary'] | undefined;
      permissions: PermissionRegistry;
      clock: Clock;
    },
  ) {}

  private target(): AiContentTarget {
    const t = this.deps.contentTargets[0];
    if (!t) throw new HttpError(503, 'CONTENT_UNAVAILABLE', 'No plugin holding websites and pages is loaded');
    return t;
  }

  private messages(input: GenerateInput): ChatMessage[] {
    return [
      ...(input.system ? [{ role: 'system' as const, content: input.system }] : []),
      { role: 'user', content: input.prompt },
    ];
  }

  private keep(kind: GeneratedEntry['kind'], prompt: string, result: unknown, model: string, actor: Actor) {
    return this.deps.generated.add({ kind, prompt, result, model, createdBy: actor.type === 'user' ? actor.id : null });
  }

  async generate(actor: Actor, input: GenerateInput): Promise<Generated> {
    const settings = await this.deps.settings.resolve('text');
    const answer = await this.deps.slots.run(actor, () =>
      this.deps.provider.chat(settings, { messages: this.messages(input), maxOutputTokens: input.maxOutputTokens }),
    );
    const entry = await this.keep('text', input.prompt, answer.text, answer.model, actor);
    return { id: entry.id, text: answer.text, model: answer.model, usage: answer.usage };
  }

  /**
   * A streamed generation: resolves once the provider accepted the call (its refusals are HTTP
   * errors), then yields the deltas and returns the whole result, kept like `generate`'s. The call's
   * slot is held until the generator ends, however it ends.
   */
  async generateStream(actor: Actor, input: GenerateInput): Promise<AsyncGenerator<string, Generated>> {
    const settings = await this.deps.settings.resolve('text');
    const release = this.deps.slots.take(actor);
    let deltas: AsyncGenerator<string, ChatAnswer>;
    try {
      deltas = await this.deps.provider.chatStream(settings, {
        messages: this.messages(input),
        maxOutputTokens: input.maxOutputTokens,
      });
    } catch (err) {
      release();
      throw err;
    }
    const keep = (a: ChatAnswer) => this.keep('text', input.prompt, a.text, a.model, actor);
    return (async function* () {
      try {
        let step = await deltas.next();
        while (!step.done) {
          yield step.value;
          step = await deltas.next();
        }
        const entry = await keep(step.value);
        return { id: entry.id, text: step.value.text, model: step.value.model, usage: step.value.usage };
      } finally {
        release();
        await deltas.return?.(undefined as never);
      }
    })();
  }

  /** Problems of a structure: the schema, the page cap, the locales, and every page's node tree. */
  structureProblems(value: unknown, maxPages: number): string[] {
    if (!Value.Check(WebsiteStructure, value))
      return [...Value.Errors(WebsiteStructure, value)].slice(0, 10).map((e) => `${e.path || '/'}: ${e.message}`);
    const s = value as AiWebsiteStructure;
    const problems: string[] = [];
    if (s.pages.length > maxPages) problems.push(`/pages: more than ${maxPages} pages`);
    const target = this.target();
    const seen = new Set<string>();
    s.pages.forEach((p, i) => {
      if (!s.locales.includes(p.locale)) problems.push(`/pages/${i}/locale: ${p.locale} is not one of the locales`);
      if (seen.has(`${p.locale} ${p.path}`)) problems.push(`/pages/${i}/path: ${p.path} appears twice in ${p.locale}`);
      seen.add(`${p.locale} ${p.path}`);
      if (countNodes(p.content, MAX_GENERATED_NODES) > MAX_GENERATED_NODES)
        problems.push(`/pages/${i}/content: more than ${MAX_GENERATED_NODES} nodes`);
      else {
        const problem = target.contentProblem(p.content, `pages.${i}.content`);
        if (problem) problems.push(`pages.${i}.content: ${problem}`);
      }
    });
    return problems;
  }

  /**
   * A website skeleton from a brief, asked for as JSON matching the structure's JSON Schema
   * (structured outputs; tool calling when the provider refuses `response_format`). An answer that
   * fails the checks is asked for once more with the problems; then 502 AI_INVALID_OUTPUT.
   */
  async generateStructure(actor: Actor, input: { brief: string; locales?: string[]; maxPages?: number }) {
    const settings = await this.deps.settings.resolve('text');
    const locales = input.locales ?? ['en'];
    const maxPages = Math.min(input.maxPages ?? 12, MAX_STRUCTURE_PAGES);
    const schema = structureJsonSchema();
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content:
          'You design website skeletons. Answer only with JSON matching the given schema. ' +
          `Locales: ${locales.join(', ')}. At most ${maxPages} pages per locale set, the home page at path "/". ` +
          'Page content is a tree of nodes { type, text?, props?, children? } with types such as section, h1, h2, p, ul, li, a, img. ' +
          'No script, style, iframe or raw HTML, no on* attributes, no javascript: links.',
      },
      { role: 'user', content: input.brief },
    ];
    let useTool = false;
    const ask = async (): Promise<{ answer: ChatAnswer; value: unknown; problems: string[] }> => {
      const request = useTool
        ? { messages, tool: { name: 'website_structure', description: 'The website skeleton', parameters: schema } }
        : { messages, jsonSchema: { name: 'website_structure', schema, strict: false } };
      let answer: ChatAnswer;
      try {
        answer = await this.deps.provider.chat(settings, request);
      } catch (err) {
        const status = (err as { providerStatus?: number }).providerStatus;
        if (useTool || (status !== 400 && status !== 422)) throw err;
        useTool = true; // no structured outputs here: the same schema as a function's parameters
        return ask();
      }
      let value: unknown;
      try {
        value = JSON.parse(answer.text);
      } catch {
        return { answer, value: undefined, problems: ['the answer is not JSON'] };
      }
      return { answer, value, problems: this.structureProblems(value, maxPages) };
    };
    const { answer, value, warnings } = await this.deps.slots.run(actor, async () => {
      let tried = await ask();
      if (tried.problems.length) {
        messages.push(
          { role: 'assistant', content: tried.answer.text.slice(0, 20_000) },
          {
            role: 'user',
            content: `Your answer broke these rules; answer again, fixed:\n${tried.problems.join('\n')}`,
          },
        );
        tried = await ask();
        if (tried.problems.length) throw invalidOutput(tried.problems);
      }
      const s = tried.value as AiWebsiteStructure;
      const warnings = locales.filter((l) => !s.locales.includes(l)).map((l) => `locale ${l} was left out`);
      return { ...tried, warnings };
    });
    await this.keep('structure', input.brief, value, answer.model, actor);
    return { structure: value as AiWebsiteStructure, warnings };
  }

  /** `POST /cms-one/websites/from-ai`: the structure (maybe edited by a person) checked, then written at once. */
  async createWebsite(ctx: Parameters<AiContentTarget['createWebsite']>[0], structure: AiWebsiteStructure) {
    const problems = this.structureProblems(structure, MAX_STRUCTURE_PAGES);
    if (problems.length) {
      const field = /^\/?([\w/.]+?)(:|$)/.exec(problems[0])?.[1]?.replace(/\//g, '.').replace(/^\./, '');
      throw badRequest(`structure: ${problems[0]}`, field ? `structure.${field}` : 'structure');
    }
    return this.target().createWebsite(ctx, structure);
  }

  /**
   * A draft translation of page `id` into `locale`, in its translation group: only texts (node
   * texts, text props, title, SEO title and description) are sent, in chunks; node ids, structure,
   * links, bindings and images stay as they are. The page is written by the content plugin's rules.
   */
  async translatePage(actor: Actor, id: string, locale: string) {
    const target = this.target();
    const page = await target.pageForTranslation(id);
    if (!page) throw notFound('Page not found');
    if (!page.websiteLocales.includes(locale))
      throw badRequest(`Locale ${locale} is not one of the website's locales`, 'locale');
    if (page.groupLocales.includes(locale))
      throw conflict(`The translation group already has a page in ${locale}`, 'UNIQUE_VIOLATION', 'locale');
    const settings = await this.deps.settings.resolve('translate');
    const content = structuredClone(page.content);
    const seo = structuredClone(page.seo);
    let title = page.title;
    const slots: TextSlot[] = [
      {
        get: () => title,
        set: (v) => {
          title = v.slice(0, 200);
        },
      },
      ...(['title', 'description'] as const)
        .filter((k) => typeof seo[k] === 'string' && (seo[k] as string).trim())
        .map((k) => ({
          get: () => seo[k] as string,
          set: (v: string) => {
            seo[k] = v;
          },
        })),
      ...textSlots(content),
    ];
    const chunks: TextSlot[][] = [];
    let size = Number.POSITIVE_INFINITY;
    for (const slot of slots) {
      const length = slot.get().length;
      if (size + length > TRANSLATION_CHUNK_CHARS) {
        chunks.push([]);
        size = 0;
      }
      chunks[chunks.length - 1].push(slot);
      size += length;
    }
    let model = settings.model;
    await this.deps.slots.run(actor, async () => {
      for (const chunk of chunks) {
        const texts = await this.translateTexts(
          settings,
          chunk.map((s) => s.get()),
          page.locale,
          locale,
        );
        for (const [i, slot] of chunk.entries()) slot.set(texts.values[i]);
        model = texts.model;
      }
    });
    const created = await target.createTranslation(actor, page, { locale, title, content, seo });
    await this.keep('translation', `${page.locale} → ${locale}: ${page.title}`, { pageId: created.id }, model, actor);
    return created;
  }

  private async translateTexts(
    settings: Awaited<ReturnType<AiSettingsService['resolve']>>,
    texts: string[],
    from: string,
    to: string,
  ): Promise<{ values: string[]; model: string }> {
    const schema = {
      type: 'object',
      required: ['texts'],
      additionalProperties: false,
      properties: { texts: { type: 'array', items: { type: 'string' } } },
    };
    const messages: ChatMessage[] = [
      {
        role: 'system',
        content:
          `Translate each text of the JSON array from ${from} into ${to}. Answer {"texts": [...]} with exactly ` +
          `${texts.length} texts in the same order. Keep {{placeholders}}, URLs and markup as they are.`,
      },
      { role: 'user', content: JSON.stringify({ texts }) },
    ];
    let problem = '';
    for (let attempt = 0; attempt < 2; attempt++) {
      if (problem) messages.push({ role: 'user', content: `Your answer was wrong (${problem}); answer again.` });
      const answer = await this.deps.provider.chat(settings, {
        messages,
        jsonSchema: { name: 'translations', schema, strict: true },
      });
      try {
        const values = (JSON.parse(answer.text) as { texts?: unknown }).texts;
        if (!Array.isArray(values) || values.length !== texts.length || !values.every((v) => typeof v === 'string'))
          problem = `expected ${texts.length} texts, got ${Array.isArray(values) ? values.length : 'none'}`;
        else return { values: values as string[], model: answer.model };
      } catch {
        problem = 'the answer is not JSON';
      }
      messages.push({ role: 'assistant', content: answer.text.slice(0, 20_000) });
    }
    throw invalidOutput([problem]);
  }

  /**
   * One image from `/images/generations`, stored in the asset library through its port as an upload
   * by `actor` (`assets:upload` too, the library's limits, an `asset.created` event).
   */
  async generateImage(actor: UserActor, input: { prompt: string; size?: string; folder?: string }) {
    if (!this.deps.permissions.allows(actor, 'assets:upload'))
      throw forbidden('Storing a generated image needs assets:upload too');
    const library = this.deps.assetLibrary;
    if (!library) throw new HttpError(503, 'ASSETS_UNAVAILABLE', 'The asset library is not loaded in this process');
    const settings = await this.deps.settings.resolve('image');
    const image = await this.deps.slots.run(actor, () =>
      this.deps.provider.image(settings, input.prompt, input.size ?? '1024x1024'),
    );
    const ext = imageExtension(image.bytes);
    if (!ext) throw invalidOutput(['the image is not PNG, JPEG or WebP']);
    const stamp = this.deps.clock.now().toISOString().replace(/[-:]/g, '').slice(0, 15);
    const asset = await library.storeFile({
      bytes: image.bytes,
      // The route takes a library path (`/ai-images`); the port takes the folder without its slashes.
      folder: (input.folder ?? '/ai-images').replace(/^\/+|\/+$/g, ''),
      filename: `ai-${stamp}-${randomUUID().slice(0, 8)}.${ext}`,
      visibility: 'public',
      actor,
    });
    await this.keep('image', input.prompt, asset.id, image.model, actor);
    return { asset };
  }

  listGenerated(f: Parameters<GeneratedStore['list']>[0]) {
    return this.deps.generated.list(f);
  }
}
