import { useQuery } from '@tanstack/react-query';
import { api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataClass, type DataComponent, type DataObject, keys } from './model.ts';

/** Every class (`GET /data-classes`), shared by the screens through the query cache. */
export function useClasses() {
  return useQuery({
    queryKey: keys.classes,
    queryFn: async () => (unwrap<unknown>(await api.GET('/data-classes')) as { classes: DataClass[] }).classes,
  });
}

/** Every component (`GET /data-components`). */
export function useComponents(enabled = true) {
  return useQuery({
    queryKey: keys.components,
    enabled,
    queryFn: async () =>
      (unwrap<unknown>(await api.GET('/data-components')) as { components: DataComponent[] }).components,
  });
}

/** One object (`GET /data-objects/:id`). */
export async function getObject(id: string): Promise<DataObject> {
  return unwrap<unknown>(await api.GET('/data-objects/{id}', { params: { path: { id } } })) as DataObject;
}

/** The language rows of an object's record, by locale. */
export async function translationsOf(id: string): Promise<DataObject[]> {
  const answer = unwrap<unknown>(await api.GET('/data-objects/{id}/translations', { params: { path: { id } } }));
  return (answer as { objects: DataObject[] }).objects;
}

export interface QueryPage {
  objects: DataObject[];
  hasMore: boolean;
  total?: number;
  nextCursor?: string;
}

export interface ObjectQuery {
  className: string;
  filters?: { field: string; op: string; value?: unknown }[];
  orderBy?: { field: string; direction: 'asc' | 'desc' }[];
  limit?: number;
  locale?: string;
  after?: string;
  includeTotal?: boolean;
}

/** `POST /data-objects/query`: a page of a class's objects, drafts included. */
export async function queryObjects(body: ObjectQuery): Promise<QueryPage> {
  return unwrap<unknown>(await api.POST('/data-objects/query', { body })) as QueryPage;
}
