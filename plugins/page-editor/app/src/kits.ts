import type { ApiAnswer } from '../../../admin-ui/app/src/sdk/index.ts';
import { json } from './documents.ts';

/** A kit as the kit view edits it: its templates in order, and the tag its state is based on. */
export interface EditedKit {
  id: string;
  name: string;
  templateIds: string[];
  etag: string;
}

export type TemplateSummary = ApiAnswer<'/cms-one/templates', 'get'>[number];

type KitDto = ApiAnswer<'/cms-one/kits/{id}', 'get'>;
const toKit = (data: KitDto, etag: string): EditedKit => ({
  id: data.id,
  name: data.name,
  templateIds: data.templateIds,
  etag: etag || `"${data.updatedAt}"`,
});

export async function loadKit(id: string): Promise<EditedKit> {
  const { data, etag } = await json<KitDto>('GET', `/cms-one/kits/${encodeURIComponent(id)}`);
  return toKit(data, etag);
}

/**
 * Stores the kit's templates in this order (`PATCH /cms-one/kits/:id`, `If-Match`: a kit changed
 * elsewhere since `ifMatch` answers 412 and nothing is written; `*` saves over it).
 */
export async function saveKitTemplates(id: string, templateIds: string[], ifMatch: string): Promise<EditedKit> {
  const { data, etag } = await json<KitDto>(
    'PATCH',
    `/cms-one/kits/${encodeURIComponent(id)}`,
    { templateIds },
    { 'if-match': ifMatch },
  );
  return toKit(data, etag);
}

/** Renames the kit (`PATCH /cms-one/kits/:id` `{ name }`, `If-Match` as for its templates). */
export async function renameKit(id: string, name: string, ifMatch: string): Promise<EditedKit> {
  const { data, etag } = await json<KitDto>(
    'PATCH',
    `/cms-one/kits/${encodeURIComponent(id)}`,
    { name },
    { 'if-match': ifMatch },
  );
  return toKit(data, etag);
}

export async function listTemplates(): Promise<TemplateSummary[]> {
  return (await json<TemplateSummary[]>('GET', '/cms-one/templates?limit=1000')).data;
}
