import { SegmentedControl } from '@mantine/core';
import { useState } from 'react';
import { LAYOUT_REGIONS, type LayoutRegion } from './documents.ts';

export const REGION_LABELS: Record<LayoutRegion, string> = {
  header: 'Header',
  aside: 'Aside',
  main: 'Main',
  footer: 'Footer',
  notFound: 'Not found',
};

/**
 * Which region of a layout the editor works on. Each region is a tree of its own: switching saves
 * the unsaved changes first (and stays when that fails, so nothing is dropped).
 */
export function RegionSwitch(props: {
  region: LayoutRegion;
  saveChanges(): Promise<boolean>;
  onSwitch(region: LayoutRegion): void;
}) {
  const [busy, setBusy] = useState(false);
  return (
    <SegmentedControl
      size="xs"
      aria-label="Layout region"
      disabled={busy}
      value={props.region}
      onChange={async (value) => {
        setBusy(true);
        try {
          if (await props.saveChanges()) props.onSwitch(value as LayoutRegion);
        } finally {
          setBusy(false);
        }
      }}
      data={LAYOUT_REGIONS.map((value) => ({ value, label: REGION_LABELS[value] }))}
    />
  );
}
