import { useQuery } from '@tanstack/react-query';
import { type ApiAnswer, type ApiBody, api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataObject, keys } from './model.ts';

/** Every class (`GET /data-classes`), shared by the screens through the query cache. */
export function useClasses() {
  return useQuery({
    queryKey: keys.classes,
    queryFn: async () => unwrap(await api.GET('/data-classes')).classes,
  });
}

/** Every component (`GET /data-components`). */
export function useComponents(enabled = true) {
  return useQuery({
    queryKey: keys.components,
    enabled,
    queryFn: async () => unwrap(await api.GET('/data-components')).components,
  });
}

/** One object (`GET /data-objects/:id`). */
export async function getObject(id: string): Promise<DataObject> {
  return unwrap(await api.GET('/data-objects/{id}', { params: { path: { id } } }));
}

/** The language rows of an object's record, by locale. */
export async function translationsOf(id: string): Promise<DataObject[]> {
  return unwrap(await api.GET('/data-objects/{id}/translations', { params: { path: { id } } })).objects;
}

/** A page of `POST /data-objects/query`: `total` only when counted, `nextCursor` when rows follow. */
export type QueryPage = ApiAnswer<'/data-objects/query', 'post'>;

export type ObjectQuery = ApiBody<'/data-objects/query', 'post'>;

/** `POST /data-objects/query`: a page of a class's objects, drafts included. */
export async function queryObjects(body: ObjectQuery): Promise<QueryPage> {
  return unwrap(await api.POST('/data-objects/query', { body }));
}
