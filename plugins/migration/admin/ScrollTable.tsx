import { Table } from '@mantine/core';
import type { ReactNode } from 'react';

/**
 * A table that scrolls sideways on a narrow screen; the scrolling region takes the keyboard focus
 * and is named after the table, so it can be scrolled without a mouse (axe: scrollable-region-focusable).
 */
export function ScrollTable(props: { label: string; minWidth: number; children: ReactNode }) {
  return (
    <Table.ScrollContainer
      minWidth={props.minWidth}
      scrollAreaProps={{ viewportProps: { tabIndex: 0, role: 'region', 'aria-label': `${props.label}, scrollable` } }}
    >
      <Table aria-label={props.label} striped>
        {props.children}
      </Table>
    </Table.ScrollContainer>
  );
}
