import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

/** The asset JSON of `/api/v1/dam/*` (plugins/assets/README.md, "Asset JSON"). */
export type Asset = ApiAnswer<'/api/v1/dam/assets/{id}', 'get'>;

/** `1.4 MB`: a size for people. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** `a/b` + `c` = `a/b/c`; the library's root is ''. */
export const joinPath = (folder: string, name: string) => (folder ? `${folder}/${name}` : name);
