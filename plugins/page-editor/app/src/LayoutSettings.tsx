import { Alert, Button, Group, Select, Stack, Switch, Text, TextInput, Title } from '@mantine/core';
import { useEffect, useState } from 'react';
import { ApiError } from '../../../admin-ui/app/src/sdk/index.ts';
import { ConflictAlert } from './Conflict.tsx';
import type { EditedDocument, LayoutSettings as Settings } from './documents.ts';

const EVERY = '*';

interface Pattern {
  key: string;
  value: string;
}
interface Slot {
  key: string;
  name: string;
  className: string;
  style: string;
}
let nextKey = 0;
const key = () => `k${nextKey++}`;
const patternsOf = (list: string[]): Pattern[] => list.map((value) => ({ key: key(), value }));
const slotsOf = (slots: Settings['slots']): Slot[] =>
  Object.entries(slots).map(([name, s]) => ({ key: key(), name, className: s.className ?? '', style: s.style ?? '' }));
const slotRecord = (rows: Slot[]): Settings['slots'] =>
  Object.fromEntries(
    rows.map((r) => [
      r.name.trim(),
      { ...(r.className ? { className: r.className } : {}), ...(r.style ? { style: r.style } : {}) },
    ]),
  );
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * A layout's settings besides its regions (`PATCH /cms-one/websites/:websiteId/templates/:id`): its
 * name, the path patterns of the pages it applies to, its language, whether it is the website's
 * default and its slots (a class and a style per slot, e.g. the page body's). Only the fields that
 * changed are sent, with `If-Match` (the tag the editor's layout is based on, so a region saved
 * next is not refused by this write). The API's 400 is shown at the field it names; a 412 offers
 * the editor's choices. Read only without `websites:edit` (the route's key).
 */
export function LayoutSettings(props: {
  name: string;
  stored: Settings;
  locales: string[];
  mayEdit: boolean;
  /** Stores the changed fields with the tag the editor's state is based on (`*` over a change made elsewhere). */
  save(change: Partial<Settings> & { name?: string }, over: boolean): Promise<EditedDocument>;
  /** After a 412: the editor's "Load their version" (the whole layout, as stored now). */
  loadTheirs(): Promise<unknown>;
}) {
  const { stored, mayEdit } = props;
  const [name, setName] = useState(props.name);
  const [patterns, setPatterns] = useState(() => patternsOf(stored.pathPatterns));
  const [locale, setLocale] = useState(stored.locale ?? EVERY);
  const [isDefault, setIsDefault] = useState(stored.isDefault);
  const [slots, setSlots] = useState(() => slotsOf(stored.slots));
  const [errors, setErrors] = useState<{ field?: string; message: string } | null>(null);
  const [conflict, setConflict] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The stored values move on (a save here, a rename in the bar, their version loaded): the form follows.
  useEffect(() => setName(props.name), [props.name]);
  useEffect(() => {
    setPatterns(patternsOf(stored.pathPatterns));
    setLocale(stored.locale ?? EVERY);
    setIsDefault(stored.isDefault);
    setSlots(slotsOf(stored.slots));
  }, [stored]);

  const changed = () => {
    const change: Partial<Settings> & { name?: string } = {};
    if (name.trim() !== props.name) change.name = name.trim();
    const list = patterns.map((p) => p.value.trim());
    if (!same(list, stored.pathPatterns)) change.pathPatterns = list;
    const lang = locale === EVERY ? null : locale;
    if (lang !== stored.locale) change.locale = lang;
    if (isDefault !== stored.isDefault) change.isDefault = isDefault;
    const record = slotRecord(slots);
    if (!same(record, stored.slots)) change.slots = record;
    return change;
  };
  const touched = () => {
    setErrors(null);
    setMessage(null);
  };
  const save = async (over = false) => {
    const change = changed();
    if (Object.keys(change).length === 0) {
      setMessage('Nothing changed: nothing to save.');
      return;
    }
    setBusy(true);
    try {
      await props.save(change, over);
      setErrors(null);
      setConflict(false);
      setMessage('Layout settings saved');
    } catch (err) {
      setMessage(null);
      if (err instanceof ApiError && err.status === 412) {
        setConflict(true);
        setErrors(null);
      } else
        setErrors({
          field: err instanceof ApiError ? err.field : undefined,
          message: `Not saved: ${(err as Error).message}`,
        });
    } finally {
      setBusy(false);
    }
  };
  // The field the API's 400 names ("pathPatterns.1", "slots.body.style", "name"…).
  const errorAt = (field: string) =>
    errors?.field === field || errors?.field?.startsWith(`${field}.`) ? errors.message : undefined;
  const placed =
    errors?.field &&
    (['name', 'locale', 'isDefault', 'pathPatterns', 'slots'].includes(errors.field) ||
      patterns.some((_, i) => errorAt(`pathPatterns.${i}`)) ||
      slots.some((s) => errorAt(`slots.${s.name.trim()}`)));
  const localeChoices = [
    { value: EVERY, label: 'Every language' },
    ...[...new Set([...props.locales, ...(stored.locale ? [stored.locale] : [])])].map((l) => ({ value: l, label: l })),
  ];

  return (
    <Stack gap="xs" mb="md" component="section" aria-labelledby="cms-layout-settings">
      <Title order={2} size="h5" id="cms-layout-settings">
        Layout settings
      </Title>
      {conflict && (
        <ConflictAlert
          what="layout"
          onSaveMine={() => void save(true)}
          onLoadTheirs={() =>
            void props.loadTheirs().then(() => {
              setConflict(false);
              setMessage('The stored layout is loaded.');
            })
          }
        >
          Someone (or another tab) saved the layout after you opened it, so these settings were not stored and nothing
          was overwritten.
        </ConflictAlert>
      )}
      <TextInput
        label="Name"
        size="xs"
        required
        readOnly={!mayEdit}
        value={name}
        error={errorAt('name')}
        onChange={(e) => {
          setName(e.currentTarget.value);
          touched();
        }}
      />
      <fieldset className="cms-fieldset">
        <legend>Path patterns</legend>
        <Text size="xs" c="dimmed">
          The pages it applies to: /blog/* (everything below /blog), /about, or * (every page); the most specific wins.
        </Text>
        {errors?.field === 'pathPatterns' && (
          <Text size="xs" c="red.8" role="alert">
            {errors.message}
          </Text>
        )}
        {patterns.length === 0 && <Text size="xs">No path patterns: the layout applies where it is the default.</Text>}
        {patterns.map((p, i) => (
          <Group key={p.key} gap={4} align="flex-start" wrap="nowrap">
            <TextInput
              size="xs"
              style={{ flex: 1, minWidth: 0 }}
              aria-label={`Path pattern ${i + 1}`}
              placeholder="/blog/*"
              readOnly={!mayEdit}
              value={p.value}
              error={errorAt(`pathPatterns.${i}`)}
              onChange={(e) => {
                const value = e.currentTarget.value;
                setPatterns((list) => list.map((q) => (q.key === p.key ? { ...q, value } : q)));
                touched();
              }}
            />
            {mayEdit && (
              <Button
                size="xs"
                variant="default"
                aria-label={`Remove path pattern ${i + 1}`}
                onClick={() => {
                  setPatterns((list) => list.filter((q) => q.key !== p.key));
                  touched();
                }}
              >
                Remove
              </Button>
            )}
          </Group>
        ))}
        {mayEdit && (
          <Button
            size="xs"
            variant="light"
            onClick={() => {
              setPatterns((list) => [...list, { key: key(), value: '' }]);
              touched();
            }}
          >
            Add a path pattern
          </Button>
        )}
      </fieldset>
      <Select
        label="Language"
        size="xs"
        data={localeChoices}
        value={locale}
        allowDeselect={false}
        readOnly={!mayEdit}
        error={errorAt('locale')}
        onChange={(v) => {
          setLocale(v ?? EVERY);
          touched();
        }}
      />
      <Switch
        size="xs"
        label="Default layout (used where no pattern matches)"
        checked={isDefault}
        disabled={!mayEdit}
        onChange={(e) => {
          setIsDefault(e.currentTarget.checked);
          touched();
        }}
      />
      <fieldset className="cms-fieldset">
        <legend>Slots</legend>
        <Text size="xs" c="dimmed">
          A class and a style per slot of the layout, e.g. body: the element holding a page's content.
        </Text>
        {errors?.field === 'slots' && (
          <Text size="xs" c="red.8" role="alert">
            {errors.message}
          </Text>
        )}
        {slots.map((s, i) => {
          const set = (change: Partial<Slot>) => {
            setSlots((list) => list.map((q) => (q.key === s.key ? { ...q, ...change } : q)));
            touched();
          };
          const slotError = s.name.trim() ? errorAt(`slots.${s.name.trim()}`) : undefined;
          return (
            <Stack key={s.key} gap={4} className="cms-slot">
              <TextInput
                size="xs"
                label={`Slot ${i + 1}: name`}
                placeholder="body"
                readOnly={!mayEdit}
                value={s.name}
                error={slotError}
                onChange={(e) => set({ name: e.currentTarget.value })}
              />
              <TextInput
                size="xs"
                label={`Slot ${i + 1}: class names`}
                readOnly={!mayEdit}
                value={s.className}
                onChange={(e) => set({ className: e.currentTarget.value })}
              />
              <TextInput
                size="xs"
                label={`Slot ${i + 1}: style`}
                readOnly={!mayEdit}
                value={s.style}
                onChange={(e) => set({ style: e.currentTarget.value })}
              />
              {mayEdit && (
                <Button
                  size="xs"
                  variant="default"
                  style={{ alignSelf: 'flex-start' }}
                  aria-label={`Remove slot ${i + 1}`}
                  onClick={() => {
                    setSlots((list) => list.filter((q) => q.key !== s.key));
                    touched();
                  }}
                >
                  Remove
                </Button>
              )}
            </Stack>
          );
        })}
        {mayEdit && (
          <Button
            size="xs"
            variant="light"
            onClick={() => {
              setSlots((list) => [...list, { key: key(), name: '', className: '', style: '' }]);
              touched();
            }}
          >
            Add a slot
          </Button>
        )}
      </fieldset>
      {errors && !placed && (
        <Alert color="red" p="xs">
          {errors.message}
        </Alert>
      )}
      {mayEdit ? (
        <Button size="xs" loading={busy} onClick={() => void save()} style={{ alignSelf: 'flex-start' }}>
          Save the layout settings
        </Button>
      ) : (
        <Text size="xs" c="dimmed">
          Read only: changing a layout's settings needs websites:edit.
        </Text>
      )}
      {message && (
        <Text size="sm" role="status">
          {message}
        </Text>
      )}
    </Stack>
  );
}
