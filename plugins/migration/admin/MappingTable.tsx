import { Badge, Table } from '@mantine/core';
import type { PreviewedClass } from './model.ts';
import { ScrollTable } from './ScrollTable.tsx';

type Field = PreviewedClass['fields'][number];

const ACTION_COLOR = { create: 'blue', reuse: 'green', conflict: 'red' } as const;

/** What a class import does with a class: create it, reuse the one here, or leave it (conflict). */
export function ActionBadge({ action }: { action: PreviewedClass['action'] }) {
  return (
    <Badge variant="light" color={ACTION_COLOR[action]}>
      {action}
    </Badge>
  );
}

/** One class's (or component's) fields: the Pimcore type each has and the data field it becomes. */
export function MappingTable(props: { label: string; fields: readonly Field[] }) {
  return (
    <ScrollTable label={props.label} minWidth={560}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Field</Table.Th>
          <Table.Th>Pimcore type</Table.Th>
          <Table.Th>Becomes</Table.Th>
          <Table.Th>Translated</Table.Th>
          <Table.Th>Note</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {props.fields.map((f) => (
          <Table.Tr key={f.name}>
            <Table.Td>
              <code>{f.name}</code>
            </Table.Td>
            <Table.Td>{f.pimcoreType}</Table.Td>
            <Table.Td>{f.type === 'skipped' ? '(skipped)' : f.type}</Table.Td>
            <Table.Td>{f.translated ? 'yes' : 'no'}</Table.Td>
            <Table.Td>{f.note ?? ''}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </ScrollTable>
  );
}
