import { Select } from '@mantine/core';
import type { Website } from './documents.ts';

/**
 * Templates and kits belong to no website: the canvas draws them in the active theme of the website
 * chosen here (the first one unless the address names another with `?website=`).
 */
export function PreviewWebsite(props: { websites: Website[]; value: string | null; onChange(id: string): void }) {
  if (props.websites.length === 0) return null;
  return (
    <Select
      label="Website whose theme draws it"
      size="xs"
      mb="sm"
      allowDeselect={false}
      data={props.websites.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
      value={props.value}
      onChange={(id) => id && props.onChange(id)}
    />
  );
}

/** The website named by `?website=` when it is one of `websites`, else the first. */
export function initialPreviewWebsite(websites: Website[]): string | null {
  const asked = new URLSearchParams(window.location.search).get('website');
  return websites.find((w) => w.id === asked)?.id ?? websites[0]?.id ?? null;
}

/** Keeps the choice in the address, so a reload draws with the same theme. */
export function rememberInAddress(name: string, value: string) {
  const url = new URL(window.location.href);
  url.searchParams.set(name, value);
  window.history.replaceState(null, '', url);
}
