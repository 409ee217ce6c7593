import { Alert, List } from '@mantine/core';
import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

type Result = ApiAnswer<'/migration-sources/{id}/import-classes', 'post'>;

/** What an import of classes did: created, reused, left as conflicts, and its warnings. */
export function ImportClassesResult({ result }: { result: Result }) {
  const lines = [
    ...result.created.map((c) => `Created ${c.name}`),
    ...result.reused.map((name) => `Reused ${name}`),
    ...result.conflicts.map((c) => `Conflict, left as it is: ${c.name} (${c.reason})`),
    ...result.warnings,
  ];
  return (
    <Alert color={result.conflicts.length ? 'orange' : 'green'} title="Classes imported" role="status">
      <List size="sm" aria-label="What the class import did">
        {lines.map((line) => (
          <List.Item key={line}>{line}</List.Item>
        ))}
      </List>
    </Alert>
  );
}
