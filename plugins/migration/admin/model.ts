import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

/** A migration source as `/migration-sources/:id` answers it (never its password). */
export type Source = ApiAnswer<'/migration-sources/{id}', 'get'>;
export type TestReport = ApiAnswer<'/migration-sources/{id}/test', 'post'>;
export type ClassPreview = ApiAnswer<'/migration-sources/{id}/preview-classes', 'post'>;
export type PreviewedClass = ClassPreview['classes'][number];
export type ImportJob = ApiAnswer<'/migration-sources/import-jobs/{jobId}', 'get'>;
export type DocumentImport = ApiAnswer<'/migration-sources/{id}/import-documents', 'post'>;
export type StagedPage = ApiAnswer<'/cms-one/pages/staged', 'get'>[number];

/** Query keys start with the plugin id. */
export const SOURCES_KEY = ['migration', 'sources'] as const;
// Not under SOURCES_KEY: refreshing the list after a delete must not ask again for the source gone.
export const sourceKey = (id: string) => ['migration', 'source', id] as const;
export const jobKey = (jobId: string) => ['migration', 'import-jobs', jobId] as const;
export const STAGED_KEY = ['migration', 'staged-pages'] as const;

/** Where a source's screens live. */
export const sourcePath = (id: string) => `/admin/migration/${id}`;

/** A job that may still change: the progress screen follows it until it is not. */
export const jobIsLive = (job: Pick<ImportJob, 'state'>) => job.state === 'queued' || job.state === 'running';

/**
 * The staged pages an import of this source wrote carry `source` = `pimcore:<source id>:...` (the
 * document import's convention), which tells them from other imports' staged pages.
 */
export const isStagedFrom = (sourceId: string, page: Pick<StagedPage, 'source'>) =>
  page.source?.startsWith(`pimcore:${sourceId}:`) ?? false;
