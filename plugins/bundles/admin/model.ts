import { type ApiAnswer, api, ApiError } from '../../admin-ui/app/src/sdk/index.ts';

/** `POST /cms-one/websites/import?dryRun=1`: the report; nothing is written. */
export type DryRunReport = ApiAnswer<'/cms-one/websites/import', 'post'>;

/** The apply's answer (201). */
export type AppliedImport = ApiAnswer<'/cms-one/websites/import', 'post', 201>;

export type PlanAction = DryRunReport['actions'][number];

export type AssetPlanItem = DryRunReport['assetPlan'][number];

/** What the import form holds: the file and the options of the request. */
export interface ImportInput {
  file: File;
  rootPath: string;
  assetMap: string;
}

const isJson = (file: File) => file.name.toLowerCase().endsWith('.json') || file.type === 'application/json';

/**
 * Sends the bundle: a `.zip` as it is (streamed by the browser, `assetMap` in the query), a plain
 * `.json` manifest as `{ manifest, assetMap }`.
 */
export async function sendImport<T>(input: ImportInput, dryRun: boolean): Promise<T> {
  const query: Record<string, string> = {};
  if (dryRun) query.dryRun = '1';
  if (input.rootPath.trim()) query.rootPath = input.rootPath.trim();
  const assetMap = input.assetMap.trim();
  let body: BodyInit;
  let type: string;
  if (isJson(input.file)) {
    let manifest: unknown;
    let map: unknown;
    try {
      manifest = JSON.parse(await input.file.text());
      map = assetMap ? JSON.parse(assetMap) : undefined;
    } catch (err) {
      throw new ApiError(400, { message: `Not valid JSON: ${(err as Error).message}` });
    }
    body = JSON.stringify(map === undefined ? manifest : { manifest, assetMap: map });
    type = 'application/json';
  } else {
    if (assetMap) query.assetMap = assetMap;
    body = input.file;
    type = 'application/zip';
  }
  const { data, error, response } = await api.POST('/cms-one/websites/import', {
    params: { query: query as { dryRun?: '1' } },
    // The route reads the raw bytes (a zip) or JSON; its schema declares no body.
    body: body as never,
    bodySerializer: (b: unknown) => b as BodyInit,
    headers: { 'content-type': type },
  });
  if (!response.ok) throw new ApiError(response.status, error as { message?: string } | undefined);
  return data as T;
}
