// The README's screenshot galleries: a table of captioned screens, two a row, written between a
// pair of markers (`<!-- <name>:start -->` ... `<!-- <name>:end -->`) by the script that took them.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../kernel/loader.ts';

const README = path.join(PROJECT_ROOT, 'README.md');

/** One screen of a gallery: its caption and its image, a path from the project root. */
export interface GalleryShot {
  title: string;
  file: string;
}

/** The table: two screens a row, each with its caption. */
export function galleryTable(shots: GalleryShot[]): string {
  const rows: string[] = ['| | |', '|---|---|'];
  const cell = (s?: GalleryShot) => (s ? `**${s.title}**<br>![${s.title}](${s.file})` : '');
  for (let i = 0; i < shots.length; i += 2) rows.push(`| ${cell(shots[i])} | ${cell(shots[i + 1])} |`);
  return rows.join('\n');
}

/** Replaces what README.md holds between the markers of `name` with `body`. */
export function rewriteReadmeSection(name: string, body: string): void {
  const start = `<!-- ${name}:start -->`;
  const end = `<!-- ${name}:end -->`;
  const readme = readFileSync(README, 'utf8');
  const from = readme.indexOf(start);
  const to = readme.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no ${start} ... ${end} section`);
  writeFileSync(README, `${readme.slice(0, from + start.length)}\n\n${body}\n\n${readme.slice(to)}`);
}
