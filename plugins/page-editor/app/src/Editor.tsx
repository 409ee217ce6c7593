import {
  type Announcements,
  DndContext,
  type DragEndEvent,
  DragOverlay,
  type DragStartEvent,
  KeyboardSensor,
  PointerSensor,
  useDroppable,
  useSensor,
  useSensors,
  type UniqueIdentifier,
} from '@dnd-kit/core';
import { SortableContext, sortableKeyboardCoordinates, verticalListSortingStrategy } from '@dnd-kit/sortable';
import { Alert, Anchor, Badge, Button, SegmentedControl, Tabs, Text, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { type ReactNode, startTransition, useCallback, useEffect, useMemo, useReducer, useRef, useState } from 'react';
import { ApiError, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import { Canvas, type CanvasHandle, type DiffMarks } from './Canvas.tsx';
import { ConflictAlert } from './Conflict.tsx';
import { DraftBanner } from './DraftBanner.tsx';
import {
  type AutosaveSettings,
  blockContent,
  canvasHtml,
  type EditedDocument,
  loadDocument,
  paletteSources,
  publishDraft,
  renameDocument,
  saveLayoutSettings,
  saveThumbnail,
  setSnippetLock,
  type ThemeValues,
  type Website,
} from './documents.ts';
import { assignedBindingIds } from './gateway.ts';
import { historyReducer, initialHistory } from './history.ts';
import { HistoryPanel } from './HistoryPanel.tsx';
import { Inspector } from './Inspector.tsx';
import { KINDS } from './kinds.ts';
import { LayoutSettings } from './LayoutSettings.tsx';
import { LocalesPanel } from './LocalesPanel.tsx';
import { MenuPanel } from './MenuPanel.tsx';
import { Outline } from './Outline.tsx';
import { BASIC_BLOCKS, Palette, type PaletteItem } from './Palette.tsx';
import { RenameTitle } from './RenameTitle.tsx';
import { type SaveStatus, useSaving } from './saving.ts';
import { ThemePanel } from './ThemePanel.tsx';
import { canvasThumbnail } from './thumbnail.ts';
import {
  type ContentNode,
  flatten,
  insertAt,
  isContainer,
  moveNode,
  type NodePath,
  nodeAt,
  nodeLabel,
  parsePathKey,
  pathKey,
  removeAt,
  updateAt,
} from './tree.ts';

const STATUS_TEXT: Record<SaveStatus, string> = {
  saved: 'Saved',
  unsaved: 'Unsaved changes',
  saving: 'Saving…',
  failed: 'Save failed',
  locked: 'Locked: autosave paused',
  conflict: 'Changed elsewhere',
};
// Named colours: the dashboard's contrast resolver darkens their light variant's text to AA.
const STATUS_COLOR: Record<SaveStatus, string> = {
  saved: 'green',
  unsaved: 'gray',
  saving: 'blue',
  failed: 'red',
  locked: 'orange',
  conflict: 'red',
};
const DEVICES = [
  { value: 'desktop', label: 'Desktop', width: null },
  { value: 'tablet', label: 'Tablet', width: 768 },
  { value: 'phone', label: 'Phone', width: 390 },
] as const;

/**
 * What to do on an empty page (or snippet, template, region): shown above the canvas until the first
 * block is in. The palette is the Blocks tab; a block goes in by drag or by its Add button (keyboard:
 * Tab to it, Enter).
 */
function EmptyHint({ what }: { what: string }) {
  return (
    <Alert color="blue" variant="light" m="xs" title={`This ${what} is empty`} className="cms-empty-hint">
      Open the Blocks tab and drag a block onto the canvas or the outline, or press Add beside a block (Tab to it and
      press Enter). Start with a heading or a section.
    </Alert>
  );
}

/** Where a palette block goes when added with its button: into a selected section, else after the selection. */
function insertionPoint(tree: ContentNode, selected: NodePath | null): { parent: NodePath; index: number } {
  if (!selected || selected.length === 0) return { parent: [], index: tree.children?.length ?? 0 };
  const node = nodeAt(tree, selected);
  if (node && isContainer(node) && node.type !== 'li') return { parent: selected, index: node.children?.length ?? 0 };
  return { parent: selected.slice(0, -1), index: selected[selected.length - 1] + 1 };
}

function CanvasDropZone() {
  const drop = useDroppable({ id: 'canvas' });
  return (
    <div ref={drop.setNodeRef} className="cms-canvas-drop" data-over={drop.isOver || undefined}>
      Drop here to add the block at the end of the page
    </div>
  );
}

interface WorkspaceProps {
  initial: EditedDocument;
  settings: AutosaveSettings;
  website: Website | null;
  /** The stored content's canvas, asked for while the document loaded (null when not there yet). */
  initialHtml: string | null;
  /** A template's canvas: the website whose theme draws it (templates belong to none). */
  previewWebsiteId?: string | null;
  /**
   * What a kind adds to the bar and the "More" tab (a layout's region switch, a template's preview
   * website); `saveChanges` saves what is unsaved first (false when that failed).
   */
  extras?(saveChanges: () => Promise<boolean>): { bar?: ReactNode; more?: ReactNode };
}

/** The editor itself, once the document and the settings are loaded. */
export function Workspace({ initial, settings, website, initialHtml, previewWebsiteId, extras }: WorkspaceProps) {
  const [history, dispatch] = useReducer(historyReducer, { tree: initial.content, title: initial.title }, (s) =>
    initialHistory(s),
  );
  const { present, selected } = history;
  // Keystrokes may arrive before a transition has drawn the previous one: each builds on the latest tree.
  const latestTree = useRef(present.tree);
  latestTree.current = present.tree;
  // What the user's keys allow (GET /auth/me); hiding is cosmetic, the API's 403 stays the authority.
  const me = useMe();
  const can = (key: string) => me.data?.permissions.includes(key) ?? false;
  const kind = KINDS[initial.kind];
  const mayEdit = can(kind.editKey);
  const mayPublish = can('objects:publish');
  const saving = useSaving({ initial, settings, present, revision: history.revision, mayEdit });
  const doc = saving.doc;
  // The binding ids a save assigned go into the tree, so the next save keeps them.
  useEffect(() => dispatch({ type: 'amend', ...assignedBindingIds(doc.content) }), [doc]);
  const canvas = useRef<CanvasHandle>(null);
  const [html, setHtml] = useState<string | null>(initialHtml);
  // The first drawing of the stored content may already be here.
  const drawn = useRef<{ tree: ContentNode; theme: ThemeValues | null; websiteId?: string | null } | null>(
    initialHtml ? { tree: initial.content, theme: null, websiteId: previewWebsiteId } : null,
  );
  const [canvasError, setCanvasError] = useState<string | null>(null);
  const [themeDraft, setThemeDraft] = useState<ThemeValues | null>(null);
  // Counts the menu changes saved in the menu panel: each one draws the canvas again.
  const [menuRevision, setMenuRevision] = useState(0);
  const drawnMenu = useRef(menuRevision);
  const [device, setDevice] = useState<string>('desktop');
  const [dragging, setDragging] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [diffMarks, setDiffMarks] = useState<DiffMarks | null>(null);
  const textEdit = useRef(false);
  const sources = useQuery({ queryKey: ['page-editor', 'palette'], queryFn: paletteSources });
  // The name and a layout's settings as stored (a rename, the settings panel and their version move them on).
  const [storedName, setStoredName] = useState(initial.title);
  const [layoutStored, setLayoutStored] = useState(initial.layout);
  useEffect(() => {
    document.title = `${present.title || '(untitled)'} · Editor`;
  }, [present.title]);

  // The canvas follows the tree and the theme being edited: at once after a structural change, a
  // little later after typing (the typed text is already patched into the canvas).
  useEffect(() => {
    if (
      drawn.current?.tree === present.tree &&
      drawn.current.theme === themeDraft &&
      drawn.current.websiteId === previewWebsiteId &&
      drawnMenu.current === menuRevision
    )
      return;
    drawn.current = null;
    drawnMenu.current = menuRevision;
    let current = true;
    const delay = textEdit.current ? 400 : 0;
    textEdit.current = false;
    const timer = setTimeout(() => {
      canvasHtml(doc, present.tree, themeDraft, previewWebsiteId)
        .then((next) => {
          if (!current) return;
          setHtml(next);
          setCanvasError(null);
        })
        .catch((err: Error) => current && setCanvasError(err.message));
    }, delay);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [doc.kind, doc.id, present.tree, themeDraft, previewWebsiteId, menuRevision]);

  const rows = useMemo(() => flatten(present.tree), [present.tree]);
  // The sortable items change only when the structure does (not on typing), so dnd-kit's context stays put.
  const keyList = rows.map((r) => r.key).join(' ');
  const keys = useMemo(() => keyList.split(' '), [keyList]);
  const selectedNode = selected ? nodeAt(present.tree, selected) : undefined;

  const edit = useCallback(
    (tree: ContentNode, opts: { coalesce?: string; select?: NodePath | null; title?: string } = {}) =>
      dispatch({
        type: 'edit',
        snapshot: { tree, title: opts.title ?? present.title },
        coalesce: opts.coalesce,
        select: opts.select,
      }),
    [present.title],
  );

  const select = useCallback((path: NodePath | null) => dispatch({ type: 'select', path }), []);

  const changeSelected = (change: (node: ContentNode) => ContentNode, field: string) => {
    if (!selected) return;
    edit(updateAt(present.tree, selected, change), { coalesce: `${pathKey(selected)}:${field}` });
  };

  const typeText = (text: string) => {
    if (!selected) return;
    // The canvas shows the keystroke at once; the render that follows confirms it.
    if (canvas.current?.patchText(selected, text)) textEdit.current = true;
    // The outline and the rest follow without holding up the next keystroke.
    startTransition(() =>
      edit(
        updateAt(latestTree.current, selected, (n) => ({ ...n, text })),
        { coalesce: `${pathKey(selected)}:text` },
      ),
    );
  };

  const paletteNode = async (item: PaletteItem): Promise<ContentNode | null> => {
    if (item.kind === 'basic') return structuredClone(BASIC_BLOCKS.find((b) => b.id === item.id)!.node);
    try {
      return await blockContent(item.source);
    } catch (err) {
      setNotice(`The block "${item.source.name}" could not be loaded: ${(err as Error).message}`);
      return null;
    }
  };

  const insert = async (item: PaletteItem, where: { parent: NodePath; index: number }) => {
    const node = await paletteNode(item);
    if (!node) return;
    const tree = insertAt(present.tree, where.parent, where.index, node);
    edit(tree, {
      select: [...where.parent, Math.min(where.index, (nodeAt(tree, where.parent)?.children?.length ?? 1) - 1)],
    });
  };

  const onDragStart = (event: DragStartEvent) => setDragging(String(event.active.id));
  const onDragEnd = (event: DragEndEvent) => {
    setDragging(null);
    const over = event.over ? String(event.over.id) : null;
    if (!over) return;
    const item = event.active.data.current?.item as PaletteItem | undefined;
    if (item) {
      if (over === 'canvas') return void insert(item, { parent: [], index: present.tree.children?.length ?? 0 });
      const target = parsePathKey(over);
      if (!target) return;
      if (target.length === 0) return void insert(item, { parent: [], index: present.tree.children?.length ?? 0 });
      return void insert(item, { parent: target.slice(0, -1), index: target[target.length - 1] + 1 });
    }
    const from = parsePathKey(String(event.active.id));
    const to = parsePathKey(over);
    if (!from || !to || over === String(event.active.id)) return;
    const fromIndex = keys.indexOf(String(event.active.id));
    const toIndex = keys.indexOf(over);
    // Dropped on the root: to the end of the page. Otherwise beside the node it was dropped on:
    // after it when moving down the outline, before it when moving up.
    const moved =
      to.length === 0
        ? moveNode(present.tree, from, [], present.tree.children?.length ?? 0)
        : moveNode(present.tree, from, to.slice(0, -1), to[to.length - 1] + (fromIndex < toIndex ? 1 : 0));
    if (moved) edit(moved.tree, { select: moved.path });
  };

  const moveSelected = (delta: -1 | 1) => {
    if (!selected || selected.length === 0) return;
    const parent = selected.slice(0, -1);
    const index = selected[selected.length - 1];
    const count = nodeAt(present.tree, parent)?.children?.length ?? 0;
    if (index + delta < 0 || index + delta >= count) return;
    const moved = moveNode(present.tree, selected, parent, delta > 0 ? index + 2 : index - 1);
    if (moved) edit(moved.tree, { select: moved.path });
  };

  const duplicateSelected = () => {
    if (!selected || selected.length === 0 || !selectedNode) return;
    const parent = selected.slice(0, -1);
    const index = selected[selected.length - 1] + 1;
    edit(insertAt(present.tree, parent, index, structuredClone(selectedNode)), { select: [...parent, index] });
  };

  const deleteSelected = () => {
    if (!selected || selected.length === 0) return;
    edit(removeAt(present.tree, selected), { select: null });
  };

  const loadTheirs = async () => {
    const theirs = await loadDocument(doc.kind, doc.id, doc);
    edit(theirs.content, { title: theirs.title });
    saving.adopt(theirs, history.revision + 1);
    setStoredName(theirs.title);
    if (theirs.layout) setLayoutStored(theirs.layout);
    setNotice('The stored version is loaded. Undo brings your version back.');
    return theirs;
  };

  /**
   * A write of the record's name or settings alone, based on the editor's tag: the tag moves on with
   * it, so the next save of the content is not refused because of it. Written over a change made
   * elsewhere (`*`), the tag stays: the content's next save then meets that change and asks.
   */
  const writeBeside = async <T,>(write: (ifMatch: string) => Promise<T & { etag: string }>, over: boolean) => {
    const from = saving.currentTag();
    const stored = await write(over ? '*' : from);
    if (!over) saving.tagMoved(from, stored.etag);
    return stored;
  };
  const rename = async (name: string, over: boolean) => {
    await writeBeside(async (ifMatch) => ({ etag: await renameDocument(doc, name, ifMatch) }), over);
    dispatch({ type: 'retitle', title: name });
    setStoredName(name);
  };

  /**
   * After a manual save or a publish: a thumbnail of the canvas for the lists (`PUT .../thumbnail`
   * with the tag just saved). Best effort: a browser that cannot draw one leaves the old thumbnail.
   */
  const storeThumbnail = async () => {
    const source = canvas.current?.document();
    const from = saving.currentTag();
    const thumbnail = source ? await canvasThumbnail(source) : null;
    if (!thumbnail) return;
    try {
      const to = await saveThumbnail(doc, thumbnail, from);
      if (to) saving.tagMoved(from, to);
    } catch (err) {
      setNotice(`The thumbnail was not stored: ${(err as Error).message}`);
    }
  };

  // A save right after another (Publish after Save) waits for the first one's thumbnail, whose
  // write moves the tag: sent at once, the second save would meet 412 from our own thumbnail.
  const thumbnailWrite = useRef<Promise<void> | null>(null);
  const saveByHand = async (opts: { over?: boolean; published?: boolean } = {}) => {
    // Ctrl+S reaches here without a Save button: a reader's keys save nothing (nor a thumbnail).
    if (!mayEdit) {
      setNotice(`Read only: your role may not save this ${kindLabel}.`);
      return false;
    }
    await thumbnailWrite.current;
    const saved = await saving.save('manual', opts);
    if (saved && kind.thumbnails) thumbnailWrite.current = storeThumbnail();
    return saved;
  };

  const publish = async (published: boolean) => {
    if (await saveByHand({ published })) setNotice(published ? 'Published' : 'Unpublished');
  };

  // The editor's state is saved first (a publisher's save by hand goes live), then what is left in
  // the working copy is published; a copy the save already made live is simply gone.
  const publishChanges = async () => {
    if (!(await saveByHand())) return;
    await thumbnailWrite.current;
    try {
      saving.adopt(await publishDraft(doc), history.revision);
      setNotice('Changes published');
    } catch (err) {
      if (!(err instanceof ApiError && err.code === 'DRAFT_NOT_FOUND')) {
        setNotice(`The changes were not published: ${(err as Error).message}`);
        return;
      }
      try {
        saving.adopt(await loadDocument(doc.kind, doc.id, doc), history.revision);
        setNotice('Changes published');
      } catch (reload) {
        setNotice(`Published; reload the page to see it: ${(reload as Error).message}`);
      }
    }
  };

  // Keyboard: undo, redo and save, as in every editor.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey)) return;
      const key = event.key.toLowerCase();
      const inField = (event.target as HTMLElement | null)?.closest?.('input, textarea, [contenteditable]');
      if (key === 's') {
        event.preventDefault();
        void saveByHand();
      } else if (!inField && key === 'z') {
        event.preventDefault();
        dispatch({ type: event.shiftKey ? 'redo' : 'undo' });
      } else if (!inField && key === 'y') {
        event.preventDefault();
        dispatch({ type: 'redo' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [saving]);

  // What a screen reader hears while a block moves: names of blocks, not their internal ids.
  const labelOf = (id: UniqueIdentifier) => {
    const key = String(id);
    if (key === 'canvas') return 'the end of the page';
    if (key.startsWith('palette:')) return `block ${key.split(':').slice(2).join(':')}`;
    const row = rows.find((r) => r.key === key);
    return row ? (row.path.length === 0 ? 'the page' : nodeLabel(row.node)) : key;
  };
  const announcements: Announcements = {
    onDragStart: ({ active }) => `Picked up ${labelOf(active.id)}.`,
    onDragOver: ({ active, over }) =>
      over ? `${labelOf(active.id)} is over ${labelOf(over.id)}.` : `${labelOf(active.id)} is over no place to drop.`,
    onDragEnd: ({ active, over }) =>
      over ? `${labelOf(active.id)} was dropped by ${labelOf(over.id)}.` : `${labelOf(active.id)} was put back.`,
    onDragCancel: ({ active }) => `Moving ${labelOf(active.id)} was cancelled.`,
  };
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const publicPath =
    doc.kind === 'pages' && website && doc.path ? `${website.rootPath}${doc.path === '/' ? '' : doc.path}` : null;
  const draggingLabel = dragging?.startsWith('palette:')
    ? dragging.split(':').slice(2).join(':')
    : dragging
      ? 'Block'
      : null;
  const deviceWidth = DEVICES.find((d) => d.value === device)?.width ?? null;
  const kindLabel = kind.label;
  const isEmpty = !present.tree.children?.length;
  const added = extras?.(async () => !mayEdit || (await saving.save('manual')));

  return (
    <DndContext
      sensors={sensors}
      accessibility={{ announcements }}
      onDragStart={onDragStart}
      onDragEnd={onDragEnd}
      onDragCancel={() => setDragging(null)}
    >
      <div className="cms-editor">
        <header className="cms-editor-bar">
          <Anchor href={kind.dashboardUrl(doc)} size="sm">
            Dashboard
          </Anchor>
          <RenameTitle what={kindLabel} name={present.title} mayEdit={mayEdit} onRename={rename} />
          {added?.bar}
          <Badge color={STATUS_COLOR[saving.status]} variant="light" role="status" aria-live="polite" size="lg">
            {STATUS_TEXT[saving.status]}
          </Badge>
          {doc.kind === 'snippets' && mayEdit && (
            <Button
              size="xs"
              variant="default"
              onClick={async () => {
                try {
                  saving.flagsChanged(await setSnippetLock(doc.id, !doc.locked, saving.currentTag()));
                  setNotice(
                    doc.locked ? 'Unlocked: autosave is on again' : 'Locked: autosaves are refused, manual saves pass',
                  );
                } catch (err) {
                  setNotice(
                    err instanceof ApiError && err.status === 412
                      ? 'The snippet changed elsewhere: reload it before changing its lock.'
                      : `The lock was not changed: ${(err as Error).message}`,
                  );
                }
              }}
            >
              {doc.locked ? 'Unlock' : 'Lock'}
            </Button>
          )}
          {doc.kind === 'snippets' && doc.locked && (
            <Badge color="orange" variant="light" size="lg">
              Locked snippet
            </Badge>
          )}
          {doc.kind === 'pages' && (
            <Badge color={doc.published ? 'teal' : 'gray'} variant="light" size="lg">
              {doc.published ? 'Published' : 'Draft'}
            </Badge>
          )}
          <Button
            size="xs"
            variant="default"
            disabled={history.past.length === 0}
            onClick={() => dispatch({ type: 'undo' })}
          >
            Undo
          </Button>
          <Button
            size="xs"
            variant="default"
            disabled={history.future.length === 0}
            onClick={() => dispatch({ type: 'redo' })}
          >
            Redo
          </Button>
          {mayEdit && (
            <Button size="xs" onClick={() => void saveByHand()} loading={saving.status === 'saving'}>
              Save
            </Button>
          )}
          {doc.kind === 'pages' &&
            mayEdit &&
            mayPublish &&
            (doc.published ? (
              <Button size="xs" variant="light" color="gray" onClick={() => void publish(false)}>
                Unpublish
              </Button>
            ) : (
              <Button size="xs" color="teal.9" onClick={() => void publish(true)}>
                Publish
              </Button>
            ))}
          {publicPath && doc.published && (
            <Anchor href={publicPath} target="_blank" size="sm">
              Open the published page
            </Anchor>
          )}
          {doc.kind === 'pages' && mayEdit && doc.websiteId && (
            // The dashboard's import screen (the figma plugin's), this page's website chosen: a new draft page.
            <Anchor href={`/admin/figma/import?websiteId=${doc.websiteId}`} size="sm">
              Import from Figma
            </Anchor>
          )}
          <SegmentedControl
            size="xs"
            aria-label="Preview width"
            value={device}
            onChange={setDevice}
            data={DEVICES.map((d) => ({ value: d.value, label: d.label }))}
          />
        </header>
        <DraftBanner doc={doc} mayPublish={mayPublish && mayEdit} onPublish={publishChanges} />
        {me.data && !mayEdit && (
          <Alert color="gray" title="Read only" m="xs">
            Your role may look at this {kindLabel} but not change it: nothing you change here is saved.
          </Alert>
        )}
        {saving.status === 'locked' && (
          <Alert color="orange" title="This snippet is locked" m="xs">
            Autosave is paused while the snippet is locked ({saving.problem}). Your changes are kept here; a manual save
            stores them.{' '}
            <Button size="compact-sm" onClick={() => void saveByHand()}>
              Save manually
            </Button>
          </Alert>
        )}
        {saving.status !== 'locked' && saving.autosavePaused === 'locked' && (
          <Text size="sm" px="sm" py={4} c="orange.9">
            The snippet is locked: autosave is paused, use Save to store changes.
          </Text>
        )}
        {saving.status === 'conflict' && (
          <ConflictAlert
            what={kindLabel}
            onSaveMine={() => void saveByHand({ over: true })}
            onLoadTheirs={() => void loadTheirs()}
            loadTheirsLabel="Load their version (undo brings mine back)"
          >
            Someone (or another tab) saved it after you opened it, so your save was not stored and nothing was
            overwritten. Your version stays here until you decide.{' '}
          </ConflictAlert>
        )}
        {saving.status === 'failed' && (
          <Alert color="red" title="Not saved" m="xs">
            {saving.problem ?? 'The last save did not go through'}. Your changes are kept here.{' '}
            {saving.autosavePaused === 'refused'
              ? 'Autosave waits: the server refused this save, and sending it again would not change that. Save by hand once the cause is fixed.'
              : settings.enabled
                ? 'Autosave tries again at its next interval.'
                : 'Autosave is off for this installation: use Save to try again.'}
          </Alert>
        )}
        {notice && (
          <Alert color="blue" m="xs" withCloseButton closeButtonLabel="Dismiss" onClose={() => setNotice(null)}>
            {notice}
          </Alert>
        )}
        <div className="cms-editor-body">
          <aside className="cms-editor-side" aria-label="Structure and blocks">
            <Tabs defaultValue="outline" keepMounted={false}>
              <Tabs.List>
                <Tabs.Tab value="outline">Outline</Tabs.Tab>
                <Tabs.Tab value="blocks">Blocks</Tabs.Tab>
                <Tabs.Tab value="more">More</Tabs.Tab>
              </Tabs.List>
              <Tabs.Panel value="outline" pt="xs">
                <TextInput
                  label={kind.nameLabel}
                  value={present.title}
                  mb="xs"
                  onChange={(e) => edit(present.tree, { title: e.currentTarget.value, coalesce: 'title' })}
                />
                <SortableContext items={keys} strategy={verticalListSortingStrategy}>
                  <Outline
                    rows={rows}
                    rootName={kind.rootName}
                    selectedKey={selected ? pathKey(selected) : null}
                    onSelect={select}
                  />
                </SortableContext>
                {isEmpty && (
                  <Text size="sm" mt="xs" className="cms-outline-empty">
                    Nothing here yet: drag a block from the Blocks tab, or press its Add button.
                  </Text>
                )}
              </Tabs.Panel>
              <Tabs.Panel value="blocks" pt="xs">
                <Palette
                  sources={sources.data ?? []}
                  onAdd={(item) => void insert(item, insertionPoint(present.tree, selected))}
                />
              </Tabs.Panel>
              <Tabs.Panel value="more" pt="xs">
                {added?.more}
                {doc.kind === 'layouts' && layoutStored && (
                  <LayoutSettings
                    name={storedName}
                    stored={layoutStored}
                    locales={website?.locales ?? []}
                    mayEdit={mayEdit}
                    loadTheirs={loadTheirs}
                    save={async (change, over) => {
                      const stored = await writeBeside((ifMatch) => saveLayoutSettings(doc, change, ifMatch), over);
                      if (change.name !== undefined) {
                        dispatch({ type: 'retitle', title: stored.title });
                        setStoredName(stored.title);
                      }
                      if (stored.layout) setLayoutStored(stored.layout);
                      return stored;
                    }}
                  />
                )}
                {kind.versions && (
                  <HistoryPanel
                    doc={doc}
                    onDiff={setDiffMarks}
                    currentTag={saving.currentTag}
                    onRestored={(stored) => {
                      edit(stored.content, { title: stored.title });
                      saving.adopt(stored, history.revision + 1);
                      setNotice('Version restored. Undo brings back what was there before.');
                    }}
                    onError={(err) =>
                      setNotice(
                        err instanceof ApiError && err.status === 412
                          ? `The ${kindLabel} changed elsewhere: save or reload before restoring.`
                          : `Restore failed: ${err.message}`,
                      )
                    }
                  />
                )}
                {doc.kind === 'pages' && <LocalesPanel doc={doc} website={website} content={present.tree} />}
                {website && (
                  <ThemePanel
                    key={website.id}
                    websiteId={website.id}
                    mayEdit={can('websites:edit')}
                    onDraft={setThemeDraft}
                  />
                )}
                {website && (
                  <MenuPanel
                    key={`menu:${website.id}`}
                    websiteId={website.id}
                    mayEdit={can('menus:edit')}
                    onSaved={() => setMenuRevision((n) => n + 1)}
                  />
                )}
              </Tabs.Panel>
            </Tabs>
          </aside>
          <main className="cms-canvas-area" aria-label="Canvas">
            {canvasError && (
              <Alert color="red" title="The canvas could not be drawn" m="xs">
                {canvasError}
              </Alert>
            )}
            {isEmpty && <EmptyHint what={doc.kind === 'layouts' ? 'region' : kindLabel} />}
            <Canvas
              ref={canvas}
              html={html}
              selected={selected}
              onSelect={select}
              width={deviceWidth}
              title={`Canvas: ${present.title}`}
              diff={diffMarks}
            />
            {dragging?.startsWith('palette:') && <CanvasDropZone />}
          </main>
          <aside className="cms-editor-side" aria-label="Inspector">
            <Inspector
              key={selected ? pathKey(selected) : 'none'}
              node={selectedNode}
              isRoot={selected?.length === 0}
              websiteId={doc.websiteId ?? website?.id}
              onChange={changeSelected}
              onText={typeText}
              onMove={moveSelected}
              onDuplicate={duplicateSelected}
              onDelete={deleteSelected}
            />
          </aside>
        </div>
      </div>
      <DragOverlay>{draggingLabel ? <div className="cms-drag-overlay">{draggingLabel}</div> : null}</DragOverlay>
    </DndContext>
  );
}
