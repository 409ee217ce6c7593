import { Alert, List } from '@mantine/core';
import type { ApiAnswer } from '../../admin-ui/app/src/sdk/index.ts';

type Result =
  | ApiAnswer<'/migration-sources/{id}/import-classes', 'post'>
  | ApiAnswer<'/migration-sources/{id}/extract-components', 'post'>;

/**
 * What an import of classes (or an extraction of components) did: created, reused, left as
 * conflicts, and its warnings.
 */
export function ImportClassesResult({ result, title = 'Classes imported' }: { result: Result; title?: string }) {
  const lines = [
    ...result.created.map((c) => `Created ${c.name}`),
    ...result.reused.map((name) => `Reused ${name}`),
    ...result.conflicts.map((c) => `Conflict, left as it is: ${c.name} (${c.reason})`),
    ...result.warnings,
  ];
  return (
    <Alert color={result.conflicts.length ? 'orange' : 'green'} title={title} role="status">
      <List size="sm" aria-label={`What happened: ${title.toLowerCase()}`}>
        {lines.map((line) => (
          <List.Item key={line}>{line}</List.Item>
        ))}
      </List>
    </Alert>
  );
}
