import { conflict, isHttpError } from '../../../kernel/index.ts';
import type { ClientApiServices } from '../services/index.ts';

type DataObjects = ClientApiServices['dataObjects'];
type Dto = Awaited<ReturnType<DataObjects['getPublished']>>;
/** The data plugin's answer object; the same object while its read cache holds the answer. */
type Answer = Awaited<ReturnType<DataObjects['publishedAnswer']>>;

/** What a client sees of an object: its identity and the class's own attributes. */
export function clientObject(o: Dto) {
  return {
    id: o.id,
    className: o.class.name,
    locale: o.locale,
    key: o.key,
    translationGroupId: o.translationGroupId,
    published: o.published,
    attributes: o.attributes,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

/**
 * The answer to a client's write: the record's identity and the values this request wrote (`key`
 * when it was sent, or on create; the attributes named in the body, as stored). Never values the
 * request did not send: the row is a draft, and drafts are never shown to clients (staff may have
 * changed other values, or a new language may have brought the record's shared values).
 */
export function writtenObject(o: Dto, sent: { key: boolean; attributes?: Record<string, unknown> }) {
  const attributes: Record<string, unknown> = {};
  for (const name of Object.keys(sent.attributes ?? {}))
    if (Object.hasOwn(o.attributes, name)) attributes[name] = o.attributes[name];
  return {
    id: o.id,
    className: o.class.name,
    locale: o.locale,
    ...(sent.key ? { key: o.key } : {}),
    translationGroupId: o.translationGroupId,
    published: o.published,
    attributes,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}

/** The data plugin's answers when a key or a unique value is taken, by whatever object. */
const TAKEN = new Set(['KEY_IN_USE', 'UNIQUE_VIOLATION']);

/**
 * A write refused because a key or unique value is taken answers one way on the client surface: no
 * field, no id, the same whether the holder is a draft or published, a key or a unique field. That
 * the value is taken cannot be hidden from a writer (the database refuses it), but nothing else is
 * told about the object holding it.
 */
export function undisclosedConflict(err: unknown): unknown {
  if (!isHttpError(err) || err.statusCode !== 409 || !TAKEN.has(err.code)) return err;
  return conflict('A value that must be unique in this class is already in use', 'UNIQUE_VIOLATION');
}

/**
 * The client API's JSON text of published reads, derived from the public read path's cached answers
 * and kept beside them: keyed by the answer object, so an entry lives exactly as long as the answer it
 * was made from (a change of the class's objects makes the data plugin answer with a new object). A
 * repeated read is then a map lookup and a write of ready text, with no JSON parsed or built.
 */
export class ClientObjectTexts {
  private readonly pages = new WeakMap<Answer, string>();
  private readonly objects = new WeakMap<Answer, { className: string; text: string }>();

  constructor(private readonly dataObjects: DataObjects) {}

  /** `{ objects, hasMore }` of a page of the public read path. */
  async page(input: Parameters<DataObjects['publishedPageAnswer']>[0]): Promise<string> {
    const answer = await this.dataObjects.publishedPageAnswer(input);
    let text = this.pages.get(answer);
    if (text === undefined) {
      const page = JSON.parse(answer.body) as { objects: Dto[]; hasMore: boolean };
      text = JSON.stringify({ objects: page.objects.map(clientObject), hasMore: page.hasMore });
      this.pages.set(answer, text);
    }
    return text;
  }

  /** One published object, with its class name for the route's check. */
  async object(id: string): Promise<{ className: string; text: string }> {
    const answer = await this.dataObjects.publishedAnswer(id);
    let shaped = this.objects.get(answer);
    if (shaped === undefined) {
      const object = JSON.parse(answer.body) as Dto;
      shaped = { className: object.class.name, text: JSON.stringify(clientObject(object)) };
      this.objects.set(answer, shaped);
    }
    return shaped;
  }
}
