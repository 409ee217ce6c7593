import { Alert, Button, Group, Text } from '@mantine/core';
import { useState } from 'react';
import { confirmDestructive, showSaved, showSaveError, unwrap } from '../../admin-ui/app/src/sdk/index.ts';

/** An answer of the generated client (openapi-fetch): the data or the error, and the response for its headers. */
export interface Answer<R> {
  data?: R;
  error?: unknown;
  response: Response;
}

/** A record's entity tag as the content API answers it in `ETag`: its `updatedAt`, quoted. */
export const entityTagOf = (record: { updatedAt: string }) => `"${record.updatedAt}"`;

/** The tag an answer carries (`ETag`), or the one its record implies. */
const tagOf = <R extends { updatedAt: string }>(answer: Answer<R>, record: R) =>
  answer.response.headers.get('etag') ?? entityTagOf(record);

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Saves of a dashboard form that never overwrite a newer version silently. The form remembers the
 * version its values were loaded from (its `ETag`) and every save sends it as `If-Match`; when the
 * record changed since (the editor, another tab, another user), the API answers 412 `EDIT_CONFLICT`,
 * nothing is written and `conflict` is set for `ConflictNotice`. After a save or a load the form's
 * values and tag are those of the stored record, so the next save goes through.
 *
 * When the screen's query brings a newer record (a lock or publish toggled on the same screen, a
 * refetch), the form follows it as far as that loses nothing: equal stored values of the form's
 * fields only move the tag; with no unsaved changes the values are replaced too; with unsaved
 * changes over different stored values the old tag stays and a save is refused.
 */
export function useStoredVersion<R extends { updatedAt: string }, V>(opts: {
  /** The record as the screen's query holds it now. */
  record: R;
  /** The form's values for a record. */
  valuesOf: (record: R) => V;
  values: V;
  setValues: (values: V) => void;
  /** Reads the stored record (`GET`). */
  read: () => Promise<Answer<R>>;
  /** Puts a record just saved or loaded where the screen reads it (the query cache). */
  store: (record: R) => void;
}) {
  const { record, valuesOf, values, setValues } = opts;
  const [loaded, setLoaded] = useState(() => ({ record, tag: entityTagOf(record) }));
  const [seen, setSeen] = useState(record.updatedAt);
  const [conflict, setConflict] = useState(false);
  const [busy, setBusy] = useState(false);
  const dirty = !same(values, valuesOf(loaded.record));

  // Adjusted while rendering (React's pattern for state derived from a changed prop), not in an effect.
  if (record.updatedAt !== seen) {
    setSeen(record.updatedAt);
    if (record.updatedAt !== loaded.record.updatedAt) {
      if (same(valuesOf(record), valuesOf(loaded.record))) setLoaded({ record, tag: entityTagOf(record) });
      else if (!dirty) {
        setLoaded({ record, tag: entityTagOf(record) });
        setValues(valuesOf(record));
      }
    }
  }

  const adopt = (stored: R, tag: string) => {
    setLoaded({ record: stored, tag });
    setSeen(stored.updatedAt);
    setValues(valuesOf(stored));
    setConflict(false);
    opts.store(stored);
  };

  /**
   * Runs a write with the form's tag as `If-Match`. Resolves the stored record, or undefined when the
   * record changed since (the conflict is shown); other failures are thrown for the form to show.
   */
  const save = async (write: (ifMatch: string) => Promise<Answer<R>>): Promise<R | undefined> => {
    setBusy(true);
    try {
      const answer = await write(loaded.tag);
      if (answer.response.status === 412 && (answer.error as { code?: string } | undefined)?.code === 'EDIT_CONFLICT') {
        setConflict(true);
        return undefined;
      }
      const saved = unwrap(answer);
      adopt(saved, tagOf(answer, saved));
      return saved;
    } finally {
      setBusy(false);
    }
  };

  /** Replaces the form's values by the stored record, after asking when that discards unsaved changes. */
  const load = async (what: string) => {
    if (dirty) {
      const ok = await confirmDestructive({
        title: 'Load the stored version?',
        removes: `your unsaved changes to this ${what}; the form then shows the ${what} as stored.`,
        confirmLabel: 'Discard my changes and load',
      });
      if (!ok) return;
    }
    setBusy(true);
    try {
      const answer = await opts.read();
      const stored = unwrap(answer);
      adopt(stored, tagOf(answer, stored));
      showSaved(`The stored version of the ${what} is loaded`);
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };

  return {
    /** The record the form's values were loaded from, and its tag (sent as `If-Match`). */
    loaded: loaded.record,
    tag: loaded.tag,
    dirty,
    busy,
    conflict,
    save,
    load,
    keepEditing: () => setConflict(false),
  };
}

/**
 * What a refused save (412 `EDIT_CONFLICT`) shows in the form: what happened, a way to load the
 * stored version (discarding the form's changes, after confirmation) and a way to keep editing.
 */
export function ConflictNotice(props: {
  what: string;
  state: Pick<ReturnType<typeof useStoredVersion>, 'conflict' | 'busy' | 'load' | 'keepEditing'>;
}) {
  const { what, state } = props;
  if (!state.conflict) return null;
  return (
    <Alert color="orange" role="alert" title={`Not saved: the ${what} was changed elsewhere`}>
      <Text size="sm" mb="sm">
        Someone saved this {what} (in the editor, another tab or as another user) after this form was loaded. Saving
        would have overwritten that change, so nothing was saved; your changes are still here. Load the stored version
        to see it (your changes here are discarded), or keep editing and copy what you need first.
      </Text>
      <Group gap="sm">
        <Button loading={state.busy} onClick={() => void state.load(what)}>
          Load the stored version
        </Button>
        <Button variant="default" onClick={state.keepEditing}>
          Keep editing
        </Button>
      </Group>
    </Alert>
  );
}
