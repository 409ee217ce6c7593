import { toObjectDto, type ObjectDto } from '../model.ts';
import type { WriteContext } from './actor.ts';
import type { DataServices } from './index.ts';
import type { CreateObjectInput, UpdateObjectInput } from './object-service.ts';
import type { QueryInput } from './query-service.ts';

/**
 * What the data plugin offers other plugins (manifest `provides: dataObjects`): published reads for
 * the gateway and site renderers, and object writes that join a caller's transaction (`ctx.trx`), so
 * an import can write pages, objects and assets all or nothing. Access checks stay with the caller's
 * route; record-change events are announced here as on the plugin's own routes.
 */
export interface DataObjectsApi {
  /** One published object; a draft answers the same 404 as an unknown id. */
  getPublished(id: string): Promise<ObjectDto>;
  /** A page of published objects of a class, with the public API's filters and sorts. */
  queryPublished(input: QueryInput): Promise<{ objects: ObjectDto[]; hasMore: boolean; total?: number }>;
  create(ctx: WriteContext, input: CreateObjectInput): Promise<ObjectDto>;
  update(ctx: WriteContext, id: string, input: UpdateObjectInput): Promise<ObjectDto>;
  remove(ctx: WriteContext, id: string): Promise<void>;
}

export function dataObjectsApi(data: DataServices): DataObjectsApi {
  return {
    getPublished: (id) => data.reads.get(id, 'public'),
    async queryPublished(input) {
      const page = await data.query.run(input, 'public');
      const objects = await data.reads.toDtos(page.rows);
      return page.total === undefined ? { objects, hasMore: page.hasMore } : { objects, hasMore: page.hasMore, total: page.total };
    },
    async create(ctx, input) {
      const { row, className } = await data.objects.create(ctx, input);
      return toObjectDto(row, className);
    },
    async update(ctx, id, input) {
      const { row, className } = await data.objects.update(ctx, id, input);
      return toObjectDto(row, className);
    },
    remove: (ctx, id) => data.objects.remove(ctx, id),
  };
}
