import { Button, Group, List, Stack, Text, Title, UnstyledButton } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { DiffMarks } from './Canvas.tsx';
import {
  canvasHtml,
  type EditedDocument,
  listVersions,
  loadVersion,
  restoreVersion,
  type Version,
  versionDiff,
} from './documents.ts';

const when = (iso: string) => new Date(iso).toLocaleString();

/**
 * The 10 versions the API keeps (the states before each save that changed the content): each one
 * drawn on a small canvas beside what changed since (pages: the paths added, removed and changed),
 * and restored with one button (a restore is a save, so the current state becomes a version too).
 */
/** `content.children.4.children.1` (the API's diff paths) as the canvas key `r.4.1`. */
const canvasKey = (path: string) => ['r', ...path.split('.').filter((part) => /^\d+$/.test(part))].join('.');

export function HistoryPanel(props: {
  doc: EditedDocument;
  currentTag(): string;
  onRestored(stored: EditedDocument): void;
  onError(err: Error): void;
  /** Marks on the canvas what was added and changed since the chosen version (null: none). */
  onDiff(marks: DiffMarks | null): void;
}) {
  const { doc } = props;
  const [chosen, setChosen] = useState<Version | null>(null);
  const versions = useQuery({
    queryKey: ['page-editor', 'versions', doc.kind, doc.id, doc.etag],
    queryFn: () => listVersions(doc),
  });
  const detail = useQuery({
    queryKey: ['page-editor', 'version', doc.kind, doc.id, chosen?.id, doc.etag],
    enabled: !!chosen,
    queryFn: async () => {
      const version = await loadVersion(doc, chosen!.id);
      const [html, diff] = await Promise.all([
        canvasHtml(doc, version.content!),
        doc.kind === 'pages' ? versionDiff(doc, chosen!.id) : Promise.resolve(null),
      ]);
      return { version, html, diff };
    },
  });
  const [restoring, setRestoring] = useState(false);
  const { onDiff } = props;
  const diff = detail.data?.diff;
  useEffect(() => {
    onDiff(chosen && diff ? { added: diff.added.map(canvasKey), changed: diff.changed.map(canvasKey) } : null);
  }, [chosen, diff, onDiff]);
  useEffect(() => () => onDiff(null), [onDiff]);

  return (
    <Stack gap="xs" mb="md">
      <Title order={2} size="h5">
        History
      </Title>
      {versions.isLoading && <Text size="sm">Loading versions…</Text>}
      {versions.isError && <Text size="sm">The versions could not be read.</Text>}
      {versions.data?.length === 0 && (
        <Text size="sm">No earlier versions yet: each save that changes the content keeps one.</Text>
      )}
      <Stack gap={2} component="ul" style={{ listStyle: 'none', padding: 0, margin: 0 }}>
        {versions.data?.map((v) => (
          <li key={v.id}>
            <UnstyledButton
              onClick={() => setChosen(v)}
              aria-current={chosen?.id === v.id ? 'true' : undefined}
              style={{ fontSize: '0.85rem', fontWeight: chosen?.id === v.id ? 700 : 400 }}
            >
              Version of {when(v.createdAt)}
              {v.title ? ` (${v.title})` : ''}
            </UnstyledButton>
          </li>
        ))}
      </Stack>
      {chosen && (
        <Stack gap="xs">
          {detail.isLoading && <Text size="sm">Drawing the version…</Text>}
          {detail.data && (
            <>
              <iframe
                className="cms-version-frame"
                title={`Version of ${when(chosen.createdAt)}`}
                sandbox=""
                srcDoc={detail.data.html}
              />
              {detail.data.diff && (
                <Text size="xs" component="div">
                  On the canvas: green is new since this version, orange changed. Compared with now:{' '}
                  {detail.data.diff.added.length} added, {detail.data.diff.removed.length} removed,{' '}
                  {detail.data.diff.changed.length} changed
                  {detail.data.diff.titleChanged ? ', title changed' : ''}.
                  <List size="xs">
                    {[
                      ...detail.data.diff.changed.map((p) => `changed ${p}`),
                      ...detail.data.diff.added.map((p) => `added ${p}`),
                      ...detail.data.diff.removed.map((p) => `removed ${p}`),
                    ]
                      .slice(0, 12)
                      .map((line) => (
                        <List.Item key={line}>{line}</List.Item>
                      ))}
                  </List>
                </Text>
              )}
            </>
          )}
          <Group gap="xs">
            <Button
              size="xs"
              loading={restoring}
              onClick={async () => {
                setRestoring(true);
                try {
                  props.onRestored(await restoreVersion(doc, chosen, props.currentTag()));
                  setChosen(null);
                } catch (err) {
                  props.onError(err as Error);
                } finally {
                  setRestoring(false);
                }
              }}
            >
              Restore this version
            </Button>
            <Button size="xs" variant="default" onClick={() => setChosen(null)}>
              Close
            </Button>
          </Group>
        </Stack>
      )}
    </Stack>
  );
}
