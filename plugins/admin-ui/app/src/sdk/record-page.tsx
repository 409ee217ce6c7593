import { Anchor, Button, Paper, Stack, Switch, Title } from '@mantine/core';
import { type QueryKey, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { confirmDestructive } from './confirm';
import { showSaved, showSaveError } from './forms';
import { PageHeader, QueryState } from './page';

/** A router link inside text, underlined so it is told from the text by more than colour ("All clients"). */
export function TextLink(props: { to: string; children: ReactNode }) {
  return (
    <Anchor underline="always" component={Link} to={props.to}>
      {props.children}
    </Anchor>
  );
}

/** What removing a record takes: the dialog's words, the request, and where to go after. */
export interface RemoveRecord<R> {
  /** The dialog's title, the sentence of what it removes (`confirmDestructive`) and its button. */
  confirm: (record: R) => { title: string; removes: ReactNode; confirmLabel: string };
  /** The request; throws `ApiError` when refused (`unwrap`). */
  run: (record: R) => Promise<unknown>;
  saved: (record: R) => string;
  /** Query keys to refresh after the removal. */
  invalidate: QueryKey;
  /** Where to go after the removal (the list), replacing the record's page in the history. */
  goTo?: string;
}

/**
 * Asks before removing a record, saying what goes; then removes it, says so, refreshes `invalidate`
 * and goes to `goTo`. A refusal is shown as a notification. Resolves true when the record is gone.
 */
export function useRemoveRecord<R>(remove: RemoveRecord<R>): (record: R) => Promise<boolean> {
  const client = useQueryClient();
  const navigate = useNavigate();
  return async (record) => {
    if (!(await confirmDestructive(remove.confirm(record)))) return false;
    try {
      await remove.run(record);
    } catch (err) {
      showSaveError(err);
      return false;
    }
    showSaved(remove.saved(record));
    await client.invalidateQueries({ queryKey: remove.invalidate });
    if (remove.goTo) await navigate(remove.goTo, { replace: true });
    return true;
  };
}

/**
 * The screen of one record (`/admin/<area>/:id`): loading and error states, the header with its
 * title, a line of description ending with the link back to the list, the screen's actions and, with
 * `remove`, a red "Delete …" button that asks first (`useRemoveRecord`).
 */
export function RecordPage<R>(props: {
  query: { data: R | undefined; error: unknown; isPending: boolean; refetch: () => unknown };
  title: (record: R) => string;
  back: { to: string; label: string };
  description?: (record: R) => ReactNode;
  actions?: (record: R) => ReactNode;
  remove?: RemoveRecord<R> & { label: string };
  maw?: number;
  children: (record: R) => ReactNode;
}) {
  return (
    <QueryState query={props.query}>
      {(record) => (
        <Stack maw={props.maw}>
          <PageHeader
            title={props.title(record)}
            description={
              <>
                {props.description?.(record)}
                <TextLink to={props.back.to}>{props.back.label}</TextLink>
              </>
            }
            actions={
              <>
                {props.actions?.(record)}
                {props.remove && <RemoveButton record={record} remove={props.remove} />}
              </>
            }
          />
          {props.children(record)}
        </Stack>
      )}
    </QueryState>
  );
}

function RemoveButton<R>(props: { record: R; remove: RemoveRecord<R> & { label: string } }) {
  const remove = useRemoveRecord(props.remove);
  return (
    <Button color="red" variant="light" onClick={() => void remove(props.record)}>
      {props.remove.label}
    </Button>
  );
}

/** A bordered section of a record's screen with its `h2`. */
export function Section(props: { title?: string; children: ReactNode }) {
  return (
    <Paper withBorder p="lg">
      {props.title && (
        <Title order={2} size="h4" mb="md">
          {props.title}
        </Title>
      )}
      {props.children}
    </Paper>
  );
}

/**
 * An on/off state saved as soon as it is switched (a client's active state, a subscription's
 * enabled state): `label` describes the current state, `save` stores the new one and `saved` says
 * what changed. A refused save is shown and the switch stays as the server has it.
 */
export function SavedSwitch(props: {
  checked: boolean;
  label: (checked: boolean) => string;
  save: (checked: boolean) => Promise<unknown>;
  saved: (checked: boolean) => string;
}) {
  return (
    <Section>
      <Switch
        label={props.label(props.checked)}
        checked={props.checked}
        onChange={async (e) => {
          const checked = e.currentTarget.checked;
          try {
            await props.save(checked);
            showSaved(props.saved(checked));
          } catch (err) {
            showSaveError(err);
          }
        }}
      />
    </Section>
  );
}
