import { ActionIcon, Button, Group, Modal, Paper, Select, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { IconArrowDown, IconArrowUp, IconPencil, IconPlus, IconTrash } from '@tabler/icons-react';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  confirmDestructive,
  EmptyState,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { keys, type MenuEntry, type Page, useMenu, usePages, type Website } from './content-api.ts';
import { WebsiteFrame } from './WebsiteFrame.tsx';

/** The parent choice of a top-level entry. */
const TOP = 'top';

/** Entries by parent, each level in menu order. */
function childrenOf(entries: MenuEntry[]): Map<string | null, MenuEntry[]> {
  const map = new Map<string | null, MenuEntry[]>();
  for (const e of entries) map.set(e.parentId, [...(map.get(e.parentId) ?? []), e]);
  for (const list of map.values()) list.sort((a, b) => a.position - b.position || a.label.localeCompare(b.label));
  return map;
}

/** Every entry below `id` (what deleting it removes with it). */
function descendants(map: Map<string | null, MenuEntry[]>, id: string): number {
  let count = 0;
  const stack = [id];
  while (stack.length) {
    for (const c of map.get(stack.pop() as string) ?? []) {
      count++;
      stack.push(c.id);
    }
  }
  return count;
}

type Draft = { label: string; target: 'page' | 'path'; pageId: string | null; path: string; parentId: string };

/** Create or change an entry: its label, where it leads (a page or an address) and its parent. */
function EntryForm(props: {
  site: Website;
  entry?: MenuEntry;
  entries: MenuEntry[];
  pages: Page[];
  nextPosition: (parentId: string | null) => number;
  onDone: () => void;
}) {
  const client = useQueryClient();
  const e = props.entry;
  const form = useForm<Draft>({
    initialValues: {
      label: e?.label ?? '',
      target: e?.path ? 'path' : 'page',
      pageId: e?.pageId ?? null,
      path: e?.path ?? '',
      parentId: e?.parentId ?? TOP,
    },
    validate: { label: (v) => (v.trim() ? null : 'Give the entry a label') },
  });
  // An entry cannot move below itself or its own sub-entries.
  const below = new Set<string>();
  if (e) {
    const map = childrenOf(props.entries);
    const stack = [e.id];
    while (stack.length) {
      const id = stack.pop() as string;
      below.add(id);
      for (const c of map.get(id) ?? []) stack.push(c.id);
    }
  }
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        const parentId = v.parentId === TOP ? null : v.parentId;
        const body = {
          label: v.label.trim(),
          pageId: v.target === 'page' ? v.pageId || null : null,
          path: v.target === 'path' ? v.path.trim() || null : null,
          parentId,
        };
        try {
          if (e) {
            unwrap(
              await api.PATCH('/cms-one/website-paths/{id}', {
                params: { path: { id: e.id } },
                body: { ...body, ...(parentId !== e.parentId ? { position: props.nextPosition(parentId) } : {}) },
              }),
            );
          } else {
            unwrap(
              await api.POST('/cms-one/website-paths', {
                body: { ...body, websiteId: props.site.id, position: props.nextPosition(parentId) },
              }),
            );
          }
          showSaved(e ? `${body.label} saved` : `${body.label} added to the menu`);
          await client.invalidateQueries({ queryKey: keys.menu(props.site.id) });
          props.onDone();
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <TextInput label="Label" required data-autofocus {...form.getInputProps('label')} />
        <Select
          label="Leads to"
          data={[
            { value: 'page', label: 'A page of the website' },
            { value: 'path', label: 'An address (path, https://… or #anchor)' },
          ]}
          allowDeselect={false}
          {...form.getInputProps('target')}
        />
        {form.values.target === 'page' ? (
          <Select
            label="Page"
            data={props.pages.map((p) => ({ value: p.id, label: `${p.title} (${p.path}, ${p.locale})` }))}
            searchable
            clearable
            nothingFoundMessage="No such page"
            {...form.getInputProps('pageId')}
          />
        ) : (
          <TextInput label="Address" placeholder="/contact" {...form.getInputProps('path')} />
        )}
        <Select
          label="Parent entry"
          data={[
            { value: TOP, label: 'None (top level)' },
            ...props.entries.filter((x) => !below.has(x.id)).map((x) => ({ value: x.id, label: x.label })),
          ]}
          allowDeselect={false}
          {...form.getInputProps('parentId')}
        />
        <Group justify="flex-end">
          <Button variant="default" onClick={props.onDone}>
            Cancel
          </Button>
          <Button type="submit" loading={form.submitting}>
            {e ? 'Save the entry' : 'Add the entry'}
          </Button>
        </Group>
      </Stack>
    </form>
  );
}

function Menu({ site, entries, pages }: { site: Website; entries: MenuEntry[]; pages: Page[] }) {
  const can = useCan();
  const client = useQueryClient();
  const canEdit = can('menus:edit');
  const [editing, setEditing] = useState<MenuEntry | 'new' | null>(null);
  const map = childrenOf(entries);
  const pageById = new Map(pages.map((p) => [p.id, p]));
  const nextPosition = (parentId: string | null) =>
    Math.max(-10, ...(map.get(parentId) ?? []).map((x) => x.position)) + 10;

  /** Moves an entry among its siblings, renumbering them 0, 10, 20… where their positions change. */
  const move = async (entry: MenuEntry, by: -1 | 1) => {
    const siblings = [...(map.get(entry.parentId) ?? [])];
    const i = siblings.findIndex((s) => s.id === entry.id);
    const j = i + by;
    if (j < 0 || j >= siblings.length) return;
    [siblings[i], siblings[j]] = [siblings[j], siblings[i]];
    try {
      for (const [k, s] of siblings.entries()) {
        if (s.position === k * 10) continue;
        unwrap(
          await api.PATCH('/cms-one/website-paths/{id}', {
            params: { path: { id: s.id } },
            body: { position: k * 10 },
          }),
        );
      }
      showSaved(`${entry.label} moved ${by < 0 ? 'up' : 'down'}`);
    } catch (err) {
      showSaveError(err);
    }
    await client.invalidateQueries({ queryKey: keys.menu(site.id) });
  };
  const remove = async (entry: MenuEntry) => {
    const below = descendants(map, entry.id);
    const ok = await confirmDestructive({
      title: `Remove ${entry.label} from the menu?`,
      removes: `the menu entry ${entry.label}${below ? ` and the ${below} entries below it` : ''}. The pages they lead to stay.`,
      confirmLabel: 'Remove from the menu',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/website-paths/{id}', { params: { path: { id: entry.id } } }));
      showSaved(`${entry.label} removed from the menu`);
      await client.invalidateQueries({ queryKey: keys.menu(site.id) });
    } catch (err) {
      showSaveError(err);
    }
  };
  const target = (e: MenuEntry) => {
    if (e.path) return e.path;
    const page = e.pageId ? pageById.get(e.pageId) : undefined;
    return page ? `${page.title} (${page.path})` : 'Nothing (a heading)';
  };
  const level = (parentId: string | null, depth: number) => {
    const list = map.get(parentId) ?? [];
    if (list.length === 0) return null;
    return (
      <ul
        style={{ listStyle: 'none', margin: 0, paddingLeft: depth ? 24 : 0 }}
        aria-label={depth ? undefined : 'Menu of the website'}
      >
        {list.map((e, i) => (
          <li key={e.id}>
            <Group
              justify="space-between"
              wrap="nowrap"
              py={6}
              style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}
            >
              <div style={{ minWidth: 0 }}>
                <Text fw={600} truncate>
                  {e.label}
                </Text>
                <Text size="sm" c="dimmed" truncate>
                  {target(e)}
                </Text>
              </div>
              {canEdit && (
                <Group gap={4} wrap="nowrap">
                  <ActionIcon
                    variant="subtle"
                    aria-label={`Move ${e.label} up`}
                    disabled={i === 0}
                    onClick={() => move(e, -1)}
                  >
                    <IconArrowUp size={16} aria-hidden />
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    aria-label={`Move ${e.label} down`}
                    disabled={i === list.length - 1}
                    onClick={() => move(e, 1)}
                  >
                    <IconArrowDown size={16} aria-hidden />
                  </ActionIcon>
                  <ActionIcon variant="subtle" aria-label={`Change ${e.label}`} onClick={() => setEditing(e)}>
                    <IconPencil size={16} aria-hidden />
                  </ActionIcon>
                  <ActionIcon variant="subtle" color="red" aria-label={`Remove ${e.label}`} onClick={() => remove(e)}>
                    <IconTrash size={16} aria-hidden />
                  </ActionIcon>
                </Group>
              )}
            </Group>
            {level(e.id, depth + 1)}
          </li>
        ))}
      </ul>
    );
  };
  return (
    <Paper withBorder p="md">
      {entries.length === 0 ? (
        <EmptyState title="The menu is empty">
          {canEdit ? 'Add an entry for each page visitors should find in the navigation.' : undefined}
        </EmptyState>
      ) : (
        level(null, 0)
      )}
      {canEdit && (
        <Group mt="md">
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setEditing('new')}>
            Add a menu entry
          </Button>
        </Group>
      )}
      <Modal
        opened={editing !== null}
        onClose={() => setEditing(null)}
        title={editing && editing !== 'new' ? `Change ${editing.label}` : 'New menu entry'}
      >
        {editing !== null && (
          <EntryForm
            site={site}
            entry={editing === 'new' ? undefined : editing}
            entries={entries}
            pages={pages}
            nextPosition={nextPosition}
            onDone={() => setEditing(null)}
          />
        )}
      </Modal>
    </Paper>
  );
}

function MenuOf({ site }: { site: Website }) {
  const menu = useMenu(site.id);
  const pages = usePages(site.id);
  return (
    <QueryState query={menu}>{(entries) => <Menu site={site} entries={entries} pages={pages.data ?? []} />}</QueryState>
  );
}

/** `/admin/websites/:id/menu`: the website's navigation, its entries nested and in order. */
export default function MenuEditor() {
  return <WebsiteFrame section="Menu">{(site) => <MenuOf site={site} />}</WebsiteFrame>;
}
