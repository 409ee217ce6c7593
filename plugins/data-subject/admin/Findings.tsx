import { Accordion, Box, Alert, Badge, Group, List, Table, Text } from '@mantine/core';
import { EmptyState } from '../../admin-ui/app/src/sdk/index.ts';
import { count, type Item, KINDS, kindLabel, type SearchAnswer } from './model.ts';

function ItemTable({ kind, items }: { kind: string; items: Item[] }) {
  return (
    <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label={`${kindLabel(kind)} found`}>
      <Table striped miw={560}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>{kind === 'files' ? 'Library path' : 'Record'}</Table.Th>
            {kind === 'objects' && <Table.Th>Class</Table.Th>}
            <Table.Th>Date</Table.Th>
            <Table.Th>Matched in</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((item) => (
            <Table.Tr key={`${item.id}:${item.locale ?? ''}`}>
              <Table.Td>
                {item.label}
                {item.locale && <Text span c="dimmed" size="sm">{` (${item.locale})`}</Text>}
              </Table.Td>
              {kind === 'objects' && <Table.Td>{item.class ?? '—'}</Table.Td>}
              <Table.Td>{new Date(item.at).toLocaleString()}</Table.Td>
              <Table.Td>
                <Group gap={4}>
                  {item.matched.map((m) => (
                    <Badge key={m} variant="light" tt="none">
                      {m}
                    </Badge>
                  ))}
                </Group>
              </Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

/** The search answer grouped by source, and the sources that were not searched (their plugin is not loaded). */
export function Findings({ answer }: { answer: SearchAnswer }) {
  const notSearched = new Set(answer.notSearched.map((n) => n.kind));
  const extra = Object.keys(answer.counts).filter((k) => !KINDS.some((known) => known.kind === k));
  const kinds = [...KINDS.map((k) => k.kind).filter((k) => !notSearched.has(k)), ...extra];
  return (
    <>
      {answer.notSearched.length > 0 && (
        <Alert color="yellow" title="Not searched" role="note">
          <List size="sm">
            {answer.notSearched.map((n) => (
              <List.Item key={n.kind}>
                {kindLabel(n.kind)}: {n.reason}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <Accordion multiple variant="separated" defaultValue={kinds.filter((k) => (answer.counts[k] ?? 0) > 0)}>
        {kinds.map((kind) => {
          const n = answer.counts[kind] ?? 0;
          const items = answer.results[kind] ?? [];
          return (
            <Accordion.Item key={kind} value={kind}>
              <Accordion.Control>
                {kindLabel(kind)}: {n}
                {kind === 'accounts' && n > 0 ? ' (reported only: an erase keeps staff accounts)' : ''}
              </Accordion.Control>
              <Accordion.Panel>
                {n === 0 ? (
                  <EmptyState title={`No ${kindLabel(kind).toLowerCase()} found`} />
                ) : (
                  <>
                    {items.length < n && (
                      <Text size="sm" c="dimmed" mb="xs">
                        Listing {items.length} of {count(n, 'record')}; the export and the erase take them all.
                      </Text>
                    )}
                    <ItemTable kind={kind} items={items} />
                  </>
                )}
              </Accordion.Panel>
            </Accordion.Item>
          );
        })}
      </Accordion>
    </>
  );
}
