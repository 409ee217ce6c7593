import {
  type Announcements,
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  type UniqueIdentifier,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import {
  SortableContext,
  sortableKeyboardCoordinates,
  useSortable,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Button, Group, SegmentedControl, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import { api, ApiError, unwrap } from '../../../admin-ui/app/src/sdk/index.ts';
import { listPages, type PageSummary } from './documents.ts';
import { descendantIds, type MenuEntry, type MenuRow, menuRows, nextPosition, placeBeside } from './menu-tree.ts';

const TOP = 'top';

/** What a failed write tells the user; a 403 is the API's word on the user's keys. */
function problem(err: unknown): string {
  if (err instanceof ApiError && err.status === 403) return 'Not allowed: your role may not change the menu.';
  return (err as Error).message || 'The change was not saved';
}

function EntryForm(props: {
  entry: MenuEntry | null;
  entries: MenuEntry[];
  pages: PageSummary[];
  onSave(body: { label: string; parentId: string | null; pageId: string | null; path: string | null }): Promise<void>;
  onCancel(): void;
}) {
  const e = props.entry;
  const [label, setLabel] = useState(e?.label ?? '');
  const [target, setTarget] = useState<string>(e?.path ? 'address' : e && !e.pageId ? 'nothing' : 'page');
  const [pageId, setPageId] = useState<string | null>(e?.pageId ?? null);
  const [path, setPath] = useState(e?.path ?? '');
  const [parent, setParent] = useState<string>(e?.parentId ?? TOP);
  const [busy, setBusy] = useState(false);
  // An entry cannot go below itself or below an entry under it.
  const below = e ? descendantIds(props.entries, e.id) : new Set<string>();
  const parents = [
    { value: TOP, label: 'The top level' },
    ...menuRows(props.entries)
      .filter((r) => r.entry.id !== e?.id && !below.has(r.entry.id))
      .map((r) => ({ value: r.entry.id, label: `${'– '.repeat(r.depth)}${r.entry.label}` })),
  ];
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    try {
      await props.onSave({
        label: label.trim(),
        parentId: parent === TOP ? null : parent,
        pageId: target === 'page' ? pageId : null,
        path: target === 'address' ? path.trim() || null : null,
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label={e ? `Edit the entry ${e.label}` : 'New menu entry'}>
      <Stack gap="xs">
        <TextInput
          label="Label"
          required
          maxLength={200}
          value={label}
          onChange={(v) => setLabel(v.currentTarget.value)}
        />
        <SegmentedControl
          size="xs"
          aria-label="The entry leads to"
          value={target}
          onChange={setTarget}
          data={[
            { value: 'page', label: 'A page' },
            { value: 'address', label: 'An address' },
            { value: 'nothing', label: 'Nothing' },
          ]}
        />
        {target === 'page' && (
          <Select
            label="Page"
            searchable
            value={pageId}
            onChange={setPageId}
            data={props.pages.map((p) => ({ value: p.id, label: `${p.title} (${p.path}, ${p.locale})` }))}
          />
        )}
        {target === 'address' && (
          <TextInput
            label="Address"
            description="A path, https://… or #anchor"
            value={path}
            onChange={(v) => setPath(v.currentTarget.value)}
          />
        )}
        <Select
          label="Below"
          value={parent}
          onChange={(v) => setParent(v ?? TOP)}
          data={parents}
          allowDeselect={false}
        />
        <Group gap="xs" justify="flex-end">
          <Button size="xs" variant="default" onClick={props.onCancel}>
            Cancel
          </Button>
          <Button size="xs" type="submit" loading={busy} disabled={!label.trim()}>
            {e ? 'Save the entry' : 'Add the entry'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Row(props: { row: MenuRow; target: string; mayEdit: boolean; onEdit(): void; onRemove(): void }) {
  const { entry, depth } = props.row;
  const sortable = useSortable({ id: entry.id, disabled: !props.mayEdit });
  return (
    <li
      ref={sortable.setNodeRef}
      className="cms-outline-row cms-menu-row"
      data-dragging={sortable.isDragging || undefined}
      data-menu-entry={entry.id}
      style={{
        transform: CSS.Translate.toString(sortable.transform),
        transition: sortable.transition,
        paddingLeft: `${0.25 + Math.min(depth, 9) * 0.9}rem`,
      }}
    >
      {props.mayEdit && (
        <button
          type="button"
          className="cms-drag-handle"
          aria-label={`Move menu entry ${entry.label}`}
          {...sortable.attributes}
          {...sortable.listeners}
        >
          ⠿
        </button>
      )}
      <span className="cms-menu-label">
        {entry.label}
        <Text span size="xs" c="dimmed">
          {' '}
          {props.target}
        </Text>
      </span>
      {props.mayEdit && (
        <Group gap={2} wrap="nowrap">
          <Button size="compact-xs" variant="subtle" aria-label={`Edit ${entry.label}`} onClick={props.onEdit}>
            Edit
          </Button>
          <Button
            size="compact-xs"
            variant="subtle"
            color="red"
            aria-label={`Remove ${entry.label}`}
            onClick={props.onRemove}
          >
            Remove
          </Button>
        </Group>
      )}
    </li>
  );
}

/**
 * The website's menu (its website paths) beside the canvas: entries in menu order, nested; with
 * `menus:edit` add, rename, link, nest (the "Below" choice), reorder by drag and drop (pointer or
 * keyboard: space, arrows, space; an entry goes beside the one it is dropped on) and remove.
 * Every change is stored at once and the canvas drawn again (`onSaved`), so a `menu` block shows
 * it. The keys only decide what is offered; a 403 from the API is shown as it is.
 */
export function MenuPanel(props: { websiteId: string; mayEdit: boolean; onSaved(): void }) {
  const client = useQueryClient();
  const key = ['page-editor', 'menu', props.websiteId];
  const menu = useQuery({
    queryKey: key,
    queryFn: async () =>
      unwrap(
        await api.GET('/cms-one/website-paths', {
          params: { query: { websiteId: props.websiteId, limit: 5000, offset: 0 } },
        }),
      ) as MenuEntry[],
  });
  const pages = useQuery({
    queryKey: ['page-editor', 'pages', props.websiteId],
    queryFn: () => listPages(props.websiteId),
  });
  const [editing, setEditing] = useState<MenuEntry | 'new' | null>(null);
  const [removing, setRemoving] = useState<MenuEntry | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const entries = menu.data ?? [];
  const rows = menuRows(entries);
  const pageById = new Map((pages.data ?? []).map((p) => [p.id, p]));

  /** Runs the writes of one change, then reloads the menu and redraws the canvas. */
  const change = async (done: string, writes: () => Promise<unknown>): Promise<boolean> => {
    try {
      await writes();
      setMessage(done);
      return true;
    } catch (err) {
      setMessage(problem(err));
      return false;
    } finally {
      await client.invalidateQueries({ queryKey: key });
      props.onSaved();
    }
  };

  const save = async (body: { label: string; parentId: string | null; pageId: string | null; path: string | null }) => {
    const entry = editing === 'new' ? null : editing;
    const ok = await change(entry ? `${body.label} saved` : `${body.label} added to the menu`, async () => {
      if (entry)
        unwrap(
          await api.PATCH('/cms-one/website-paths/{id}', {
            params: { path: { id: entry.id } },
            body: {
              ...body,
              ...(body.parentId !== entry.parentId ? { position: nextPosition(entries, body.parentId) } : {}),
            },
          }),
        );
      else
        unwrap(
          await api.POST('/cms-one/website-paths', {
            body: { websiteId: props.websiteId, ...body, position: nextPosition(entries, body.parentId) },
          }),
        );
    });
    if (ok) setEditing(null);
  };

  const onDragEnd = (event: DragEndEvent) => {
    const over = event.over ? String(event.over.id) : null;
    const moving = entries.find((e) => e.id === String(event.active.id));
    if (!over || !moving) return;
    const writes = placeBeside(entries, moving.id, over);
    if (!writes || writes.length === 0) return;
    // Shown moved at once; the stored order follows.
    client.setQueryData<MenuEntry[]>(key, (list) =>
      list?.map((e) => {
        const w = writes.find((x) => x.id === e.id);
        return w ? { ...e, parentId: w.parentId, position: w.position } : e;
      }),
    );
    void change(`${moving.label} moved`, async () => {
      for (const w of writes)
        unwrap(
          await api.PATCH('/cms-one/website-paths/{id}', {
            params: { path: { id: w.id } },
            body: { parentId: w.parentId, position: w.position },
          }),
        );
    });
  };

  const labelOf = (id: UniqueIdentifier) => entries.find((e) => e.id === String(id))?.label ?? 'an entry';
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up menu entry ${labelOf(active.id)}.`,
    onDragOver: ({ active, over }) =>
      over ? `${labelOf(active.id)} is over ${labelOf(over.id)}.` : `${labelOf(active.id)} is over no entry.`,
    onDragEnd: ({ active, over }) =>
      over ? `${labelOf(active.id)} was put beside ${labelOf(over.id)}.` : `${labelOf(active.id)} was put back.`,
    onDragCancel: ({ active }) => `Moving ${labelOf(active.id)} was cancelled.`,
  };

  const targetOf = (e: MenuEntry) => {
    if (e.path) return e.path;
    const page = e.pageId ? pageById.get(e.pageId) : undefined;
    return page ? page.path : e.pageId ? '(a page)' : '(no link)';
  };

  return (
    <Stack gap="xs" mt="md">
      <Title order={2} size="h5">
        Menu
      </Title>
      {menu.isLoading && <Text size="sm">Loading the menu…</Text>}
      {menu.isError && <Text size="sm">The menu could not be loaded: {(menu.error as Error).message}</Text>}
      {menu.isSuccess && rows.length === 0 && <Text size="sm">This website's menu has no entries yet.</Text>}
      {rows.length > 0 && (
        <DndContext
          sensors={sensors}
          collisionDetection={closestCenter}
          onDragEnd={onDragEnd}
          accessibility={{ announcements }}
        >
          <SortableContext items={rows.map((r) => r.entry.id)} strategy={verticalListSortingStrategy}>
            <ul className="cms-outline" aria-label="Menu entries">
              {rows.map((row) => (
                <Row
                  key={row.entry.id}
                  row={row}
                  target={targetOf(row.entry)}
                  mayEdit={props.mayEdit}
                  onEdit={() => setEditing(row.entry)}
                  onRemove={() => setRemoving(row.entry)}
                />
              ))}
            </ul>
          </SortableContext>
        </DndContext>
      )}
      {removing && (
        <Stack gap={4} role="group" aria-label={`Remove ${removing.label}`}>
          <Text size="sm">
            Remove {removing.label}
            {descendantIds(entries, removing.id).size
              ? ` and the ${descendantIds(entries, removing.id).size} entries below it`
              : ''}{' '}
            from the menu? The pages stay.
          </Text>
          <Group gap="xs">
            <Button
              size="xs"
              color="red.9"
              onClick={async () => {
                const entry = removing;
                setRemoving(null);
                await change(`${entry.label} removed from the menu`, async () =>
                  unwrap(await api.DELETE('/cms-one/website-paths/{id}', { params: { path: { id: entry.id } } })),
                );
              }}
            >
              Remove from the menu
            </Button>
            <Button size="xs" variant="default" onClick={() => setRemoving(null)}>
              Keep it
            </Button>
          </Group>
        </Stack>
      )}
      {editing ? (
        <EntryForm
          key={editing === 'new' ? 'new' : editing.id}
          entry={editing === 'new' ? null : editing}
          entries={entries}
          pages={pages.data ?? []}
          onSave={save}
          onCancel={() => setEditing(null)}
        />
      ) : (
        props.mayEdit && (
          <Button size="xs" variant="light" onClick={() => setEditing('new')}>
            Add a menu entry
          </Button>
        )
      )}
      {!props.mayEdit && (
        <Text size="xs" c="dimmed">
          Changing the menu needs menus:edit.
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
