import { Button, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useId, useRef, useState } from 'react';
import { useCan } from '../shell/session';
import { showSaved, showSaveError } from './forms';

/**
 * What a `…/draft/diff` route answers: the names that differ, their live and working-copy values, and
 * for node trees the blocks added, removed and changed.
 */
export interface DraftDiff {
  changed: string[];
  fields?: Array<{ field: string; live: unknown; draft: unknown }>;
  content?: { added: string[]; removed: string[]; changed: string[] };
}

export interface DraftReviewProps {
  /** The accessible name of the panel (`Draft`, `Changes to News`). */
  label: string;
  /** A heading above the review (record screens: "Draft — live version differs"); none in a list. */
  title?: string;
  /** When the working copy was saved (ISO time). */
  savedAt?: string;
  /** What the live version is and where it shows, under the heading. */
  note?: string;
  /** Query key of the diff: the record's key and the copy's `updatedAt`, so a new save reloads it. */
  diffKey: readonly unknown[];
  loadDiff(): Promise<DraftDiff>;
  /** `POST …/publish-draft`. */
  publish(): Promise<unknown>;
  /** `DELETE …/draft`; absent: no Discard button (the viewer may not edit the record). */
  discard?: () => Promise<unknown>;
  /** After a publish or a discard (refresh the record or the list). */
  onDone(what: 'publish' | 'discard'): void | Promise<void>;
}

const short = (value: unknown) => {
  const text = JSON.stringify(value) ?? 'none';
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
};

/**
 * The review of a working copy, the same on every screen that shows one (pages, snippets, templates,
 * layouts, data objects and the Pending changes list): what differs from live, **Publish changes**
 * for who holds `objects:publish`, otherwise a disabled **Request review** with the reason, and
 * **Discard changes**. The API's 403 stays the authority; the button only saves a refused request.
 */
export function DraftReview(props: DraftReviewProps) {
  const can = useCan();
  const reasonId = useId();
  const [busy, setBusy] = useState<'publish' | 'discard'>();
  const [gone, setGone] = useState(false);
  // Once published or discarded the copy is gone: a refresh of the record's queries (which may hold
  // this one) must not ask for its diff again (404).
  const goneRef = useRef(false);
  const diff = useQuery({
    queryKey: [...props.diffKey, 'draft-diff'],
    queryFn: (): Promise<DraftDiff> => (goneRef.current ? Promise.resolve({ changed: [] }) : props.loadDiff()),
    retry: false,
  });
  const mayPublish = can('objects:publish');
  const act = async (what: 'publish' | 'discard') => {
    setBusy(what);
    try {
      await (what === 'publish' ? props.publish() : props.discard?.());
      goneRef.current = true;
      setGone(true);
      showSaved(what === 'publish' ? 'Changes published' : 'Changes discarded');
      await props.onDone(what);
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(undefined);
    }
  };
  if (gone) return null;
  const d = diff.data;
  const blocks = d?.content;
  return (
    <Paper withBorder p="md" aria-label={props.label}>
      <Stack gap="xs">
        {props.title && (
          <Title order={2} size="h5">
            {props.title}
          </Title>
        )}
        {(props.savedAt || props.note) && (
          <Text size="sm">
            {props.savedAt && `Saved ${new Date(props.savedAt).toLocaleString()}. `}
            {props.note}
          </Text>
        )}
        {diff.isLoading && <Text size="sm">Loading the changes…</Text>}
        {diff.isError && (
          <Text size="sm" c="red.9">
            The changes could not be loaded: {(diff.error as Error).message}
          </Text>
        )}
        {d && (
          <>
            <Text size="sm">Changed: {d.changed.join(', ') || 'nothing'}</Text>
            {d.fields && d.fields.length > 0 && (
              <List size="sm" aria-label="Changed values">
                {d.fields.map((f) => (
                  <List.Item key={f.field}>
                    {f.field}: {short(f.live)} → {short(f.draft)}
                  </List.Item>
                ))}
              </List>
            )}
            {blocks && (blocks.added.length > 0 || blocks.removed.length > 0 || blocks.changed.length > 0) && (
              <Text size="sm">
                Blocks: {blocks.added.length} added, {blocks.removed.length} removed, {blocks.changed.length} changed
              </Text>
            )}
          </>
        )}
        <Group gap="xs">
          {mayPublish ? (
            <Button size="xs" loading={busy === 'publish'} onClick={() => void act('publish')}>
              Publish changes
            </Button>
          ) : (
            <Button size="xs" disabled aria-describedby={reasonId}>
              Request review
            </Button>
          )}
          {props.discard && (
            <Button size="xs" variant="default" loading={busy === 'discard'} onClick={() => void act('discard')}>
              Discard changes
            </Button>
          )}
        </Group>
        {!mayPublish && (
          <Text size="sm" c="dimmed" id={reasonId}>
            Publishing needs the objects:publish permission: ask someone who may publish to review these changes.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
