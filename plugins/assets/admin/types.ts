/** The asset JSON of `/api/v1/dam/*` (plugins/assets/README.md, "Asset JSON"). */
export interface Asset {
  id: string;
  uuid: string;
  path: string;
  folder: string;
  filename: string;
  mimeType: string;
  size: number;
  visibility: 'public' | 'private';
  metadata: Record<string, unknown>;
  width: number | null;
  height: number | null;
  version: number;
  url: string;
  thumbnailUrl: string | null;
  thumbnails: { width: number; url: string }[];
  publicUrl: string;
  createdAt: string;
  updatedAt: string;
}

export interface Folder {
  path: string;
  name: string;
  createdAt: string;
}

export interface Preset {
  name: string;
  width: number | null;
  height: number | null;
  fit: string;
  format: string;
  quality: number;
}

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
