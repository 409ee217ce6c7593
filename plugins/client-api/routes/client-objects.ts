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
