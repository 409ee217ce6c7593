import { Alert, Button, Group, List, Text } from '@mantine/core';
import { useId, useState } from 'react';
import { type DraftDiff, type DocumentKind, draftDiff, type EditedDocument } from './documents.ts';

/** How the banner names each kind. */
const NAME: Record<DocumentKind, string> = {
  pages: 'page',
  snippets: 'snippet',
  templates: 'template',
  layouts: 'layout',
};

/**
 * A live record (a published page, a snippet, template or layout) with a working copy: what the editor shows is not yet on the site. The diff lists
 * the fields and node paths that differ; "Publish changes", or for someone who may not publish a
 * disabled "Request review" with the reason (the API's 403 stays the authority).
 */
export function DraftBanner(props: { doc: EditedDocument; mayPublish: boolean; onPublish: () => Promise<void> }) {
  const [diff, setDiff] = useState<DraftDiff | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const reasonId = useId();
  if (!props.doc.draft) return null;
  const name = NAME[props.doc.kind];
  const showDiff = async () => {
    try {
      setDiff(diff ? null : await draftDiff(props.doc));
      setProblem(null);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  const publish = async () => {
    setBusy(true);
    try {
      await props.onPublish();
      setDiff(null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Alert color="yellow" title="Draft — live version differs" m="xs">
      <Text size="sm">
        The site shows this {name} as last published; the changes saved here wait until they are published.
      </Text>
      <Group gap="xs" mt="xs">
        <Button size="compact-sm" variant="default" onClick={() => void showDiff()}>
          {diff ? 'Hide changes' : 'Show changes'}
        </Button>
        {props.mayPublish ? (
          <Button size="compact-sm" color="teal.9" loading={busy} onClick={() => void publish()}>
            Publish changes
          </Button>
        ) : (
          <Button size="compact-sm" disabled aria-describedby={reasonId}>
            Request review
          </Button>
        )}
        {!props.mayPublish && (
          <Text size="sm" id={reasonId}>
            Publishing needs the objects:publish permission: ask someone who may publish to review it.
          </Text>
        )}
      </Group>
      {problem && (
        <Text size="sm" c="red.9" mt="xs">
          {problem}
        </Text>
      )}
      {diff && (
        <List size="sm" mt="xs" aria-label={`Changes against the live ${name}`}>
          {diff.fields.map((f) => (
            <List.Item key={f.field}>{f.field} changed</List.Item>
          ))}
          {diff.content.added.length > 0 && <List.Item>Blocks added: {diff.content.added.length}</List.Item>}
          {diff.content.removed.length > 0 && <List.Item>Blocks removed: {diff.content.removed.length}</List.Item>}
          {diff.content.changed.length > 0 && <List.Item>Blocks changed: {diff.content.changed.length}</List.Item>}
        </List>
      )}
    </Alert>
  );
}
