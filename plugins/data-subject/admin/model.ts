import { type ApiAnswer, api, ApiError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** The search options of every route (`classes`, `lookInsideText`, `limit`). */
export interface Options {
  classes?: string[];
  lookInsideText?: boolean;
  limit?: number;
}

/** Who is asked about: the identifier and the options, as the last search sent them. */
export interface Subject {
  identifier: string;
  options: Options;
}

/** `POST /data-subject/search`: counts per kind, the first items of each, the kinds not searched. */
export type SearchAnswer = ApiAnswer<'/data-subject/search', 'post'>;

export type Item = SearchAnswer['results'][string][number];

/** `POST /data-subject/erase`. */
export type EraseAnswer = ApiAnswer<'/data-subject/erase', 'post'>;

/** The kinds the product's plugins contribute, in the order the screen shows them. */
export const KINDS: ReadonlyArray<{ kind: string; label: string }> = [
  { kind: 'objects', label: 'Objects' },
  { kind: 'files', label: 'Files' },
  { kind: 'mails', label: 'Mails' },
  { kind: 'accounts', label: 'Staff accounts' },
];

export const kindLabel = (kind: string) => KINDS.find((k) => k.kind === kind)?.label ?? kind;

export const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export async function search(subject: Subject): Promise<SearchAnswer> {
  const body = { identifier: subject.identifier, options: subject.options };
  return unwrap(await api.POST('/data-subject/search', { body }));
}

export async function erase(subject: Subject, confirmed: boolean): Promise<EraseAnswer> {
  const body = {
    identifier: subject.identifier,
    options: subject.options,
    dryRun: !confirmed,
    ...(confirmed ? { confirm: subject.identifier } : {}),
  };
  return unwrap(await api.POST('/data-subject/erase', { body }));
}

/**
 * `POST /data-subject/export`: the JSON document as a file the browser saves, named as the server
 * names it (`data-subject-<12 hex>.json`, nothing derived from the identifier).
 */
export async function downloadExport(subject: Subject): Promise<string> {
  const body = { identifier: subject.identifier, options: subject.options };
  const { data, error, response } = await api.POST('/data-subject/export', { body, parseAs: 'blob' });
  // openapi-fetch parses an error answer as JSON whatever `parseAs` says.
  if (!response.ok || !data) throw new ApiError(response.status, error as { message?: string } | undefined);
  const name = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'data-subject.json';
  const href = URL.createObjectURL(data);
  const link = document.createElement('a');
  link.href = href;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  // The click has handed the file to the browser's download; the object URL is no longer needed.
  setTimeout(() => URL.revokeObjectURL(href), 10_000);
  return name;
}
