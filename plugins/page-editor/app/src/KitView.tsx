import {
  closestCenter,
  DndContext,
  type DragEndEvent,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
} from '@dnd-kit/core';
import {
  arrayMove,
  SortableContext,
  sortableKeyboardCoordinates,
  verticalListSortingStrategy,
} from '@dnd-kit/sortable';
import { Alert, Anchor, Badge, Button, Group, Loader, Select, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useDeferredValue, useEffect, useRef, useState } from 'react';
import { ApiError, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import { listWebsites, type ThemeValues } from './documents.ts';
import { KitCard } from './KitCard.tsx';
import { ConflictAlert } from './Conflict.tsx';
import { type EditedKit, listTemplates, loadKit, renameKit, saveKitTemplates } from './kits.ts';
import { initialPreviewWebsite, PreviewWebsite, rememberInAddress } from './PreviewWebsite.tsx';
import { Centered, Problem, problemOf } from './Problem.tsx';
import { RenameTitle } from './RenameTitle.tsx';
import { ThemePanel } from './ThemePanel.tsx';
import './kit.css';

type KitStatus = 'saved' | 'saving' | 'failed' | 'conflict';
const STATUS: Record<KitStatus, { text: string; color: string }> = {
  saved: { text: 'Saved', color: 'green' },
  saving: { text: 'Saving…', color: 'blue' },
  failed: { text: 'Save failed', color: 'red' },
  conflict: { text: 'Changed elsewhere', color: 'red' },
};

/** A kit's list with a key per place, so a template that is in the kit twice moves as one entry. */
interface Entry {
  key: string;
  templateId: string;
}
let nextKey = 0;
const entriesOf = (ids: string[]): Entry[] => ids.map((templateId) => ({ key: `e${nextKey++}`, templateId }));

/**
 * `/cms-one/editor/kits/<id>`: a kit's templates, each drawn in the theme of a chosen website, in
 * the kit's order. Designers add, remove and reorder them (drag, keyboard, or the Up and Down
 * buttons); every change is saved at once with `If-Match`, so a kit changed elsewhere is never
 * overwritten silently. Each template opens in the editor.
 */
export function KitView(props: { id: string }) {
  const me = useMe();
  const kit = useQuery({
    queryKey: ['page-editor', 'kit', props.id],
    queryFn: () => loadKit(props.id),
    staleTime: Infinity,
  });
  const templates = useQuery({ queryKey: ['page-editor', 'templates'], queryFn: listTemplates });
  const websites = useQuery({ queryKey: ['page-editor', 'websites'], queryFn: listWebsites });
  const signedOut = me.data === null || (kit.error instanceof ApiError && kit.error.status === 401);
  useEffect(() => {
    if (signedOut)
      window.location.replace(`/sign-in?next=${encodeURIComponent(window.location.pathname + window.location.search)}`);
  }, [signedOut]);
  if (kit.isError && !signedOut) {
    const p = problemOf(kit.error, 'kit');
    return <Problem title={p.title}>{p.text}</Problem>;
  }
  if (signedOut || !me.data || !kit.data || !templates.data || !websites.data)
    return (
      <Centered>
        <Loader aria-label="Opening the kit" />
      </Centered>
    );
  return (
    <KitWorkspace
      initial={kit.data}
      templates={templates.data}
      websites={websites.data}
      mayEdit={me.data.permissions.includes('templates:edit')}
      mayEditTheme={me.data.permissions.includes('websites:edit')}
    />
  );
}

function KitWorkspace(props: {
  initial: EditedKit;
  templates: Array<{ id: string; name: string; path: string }>;
  websites: Awaited<ReturnType<typeof listWebsites>>;
  mayEdit: boolean;
  mayEditTheme: boolean;
}) {
  const [entries, setEntries] = useState(() => entriesOf(props.initial.templateIds));
  const [status, setStatus] = useState<KitStatus>('saved');
  const [problem, setProblem] = useState<string | null>(null);
  const [adding, setAdding] = useState<string | null>(null);
  const [preview, setPreview] = useState(() => initialPreviewWebsite(props.websites));
  const [themeDraft, setThemeDraft] = useState<ThemeValues | null>(null);
  // Every card redraws on a theme change: after the typing, not on each key.
  const theme = useDeferredValue(themeDraft);
  const etag = useRef(props.initial.etag);
  const [name, setName] = useState(props.initial.name);
  useEffect(() => {
    document.title = `${name} · Editor`;
  }, [name]);
  // Renamed over a change made elsewhere (`*`), the tag stays: the next change of the list meets it and asks.
  const rename = async (next: string, over: boolean) => {
    const saved = await renameKit(props.initial.id, next, over ? '*' : etag.current);
    if (!over) etag.current = saved.etag;
    setName(saved.name);
  };
  const names = new Map(props.templates.map((t) => [t.id, t.name]));
  const website = props.websites.find((w) => w.id === preview) ?? null;

  const store = async (next: Entry[], over = false) => {
    setEntries(next);
    setStatus('saving');
    try {
      const ids = next.map((e) => e.templateId);
      const saved = await saveKitTemplates(props.initial.id, ids, over ? '*' : etag.current);
      etag.current = saved.etag;
      setProblem(null);
      setStatus('saved');
    } catch (err) {
      setProblem((err as Error).message);
      setStatus(err instanceof ApiError && err.status === 412 ? 'conflict' : 'failed');
    }
  };
  const loadTheirs = async () => {
    const stored = await loadKit(props.initial.id);
    etag.current = stored.etag;
    setName(stored.name);
    setEntries(entriesOf(stored.templateIds));
    setProblem(null);
    setStatus('saved');
  };
  const move = (index: number, to: number) => {
    if (to < 0 || to >= entries.length || to === index) return;
    void store(arrayMove(entries, index, to));
  };
  const onDragEnd = (event: DragEndEvent) => {
    if (!event.over) return;
    const from = entries.findIndex((e) => e.key === event.active.id);
    const to = entries.findIndex((e) => e.key === event.over?.id);
    if (from >= 0 && to >= 0) move(from, to);
  };
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );
  const nameOf = (id: string | number) =>
    names.get(entries.find((e) => e.key === id)?.templateId ?? '') ?? 'a template';

  return (
    <div className="cms-editor">
      <header className="cms-editor-bar">
        <Anchor href={`/admin/kits/${props.initial.id}`} size="sm">
          Dashboard
        </Anchor>
        <RenameTitle what="kit" name={name} mayEdit={props.mayEdit} onRename={rename} />
        <Badge color={STATUS[status].color} variant="light" role="status" aria-live="polite" size="lg">
          {STATUS[status].text}
        </Badge>
      </header>
      {!props.mayEdit && (
        <Alert color="gray" title="Read only" m="xs">
          Your role may look at this kit but not change it.
        </Alert>
      )}
      {status === 'conflict' && (
        <ConflictAlert what="kit" onSaveMine={() => void store(entries, true)} onLoadTheirs={() => void loadTheirs()}>
          Someone (or another tab) saved it after you opened it, so your change was not stored.
        </ConflictAlert>
      )}
      {status === 'failed' && (
        <Alert color="red" title="Not saved" m="xs">
          {problem}. The kit shows your change; change it again or reload.
        </Alert>
      )}
      <div className="cms-kit-body">
        <aside className="cms-editor-side" aria-label="Kit settings">
          <PreviewWebsite
            websites={props.websites}
            value={preview}
            onChange={(id) => {
              rememberInAddress('website', id);
              setPreview(id);
            }}
          />
          {props.mayEdit && (
            <Group align="flex-end" mb="md" gap="xs">
              <Select
                label="Template to add"
                size="xs"
                searchable
                data={props.templates.map((t) => ({ value: t.id, label: `${t.name} (${t.path})` }))}
                value={adding}
                onChange={setAdding}
              />
              <Button
                size="xs"
                disabled={!adding}
                onClick={() => {
                  if (!adding) return;
                  void store([...entries, ...entriesOf([adding])]);
                  setAdding(null);
                }}
              >
                Add to the kit
              </Button>
            </Group>
          )}
          {website && (
            <ThemePanel key={website.id} websiteId={website.id} mayEdit={props.mayEditTheme} onDraft={setThemeDraft} />
          )}
        </aside>
        <main className="cms-kit-area" aria-label="Templates of the kit">
          {entries.length === 0 ? (
            <Text>This kit has no templates yet{props.mayEdit ? ': add one.' : '.'}</Text>
          ) : (
            <DndContext
              sensors={sensors}
              collisionDetection={closestCenter}
              onDragEnd={onDragEnd}
              accessibility={{
                announcements: {
                  onDragStart: ({ active }) => `Picked up ${nameOf(active.id)}.`,
                  onDragOver: ({ active, over }) =>
                    over
                      ? `${nameOf(active.id)} is over ${nameOf(over.id)}.`
                      : `${nameOf(active.id)} is over no place.`,
                  onDragEnd: ({ active, over }) =>
                    over
                      ? `${nameOf(active.id)} was dropped by ${nameOf(over.id)}.`
                      : `${nameOf(active.id)} was put back.`,
                  onDragCancel: ({ active }) => `Moving ${nameOf(active.id)} was cancelled.`,
                },
              }}
            >
              <SortableContext items={entries.map((e) => e.key)} strategy={verticalListSortingStrategy}>
                <ol className="cms-kit-list">
                  {entries.map((entry, i) => (
                    <KitCard
                      key={entry.key}
                      entryKey={entry.key}
                      templateId={entry.templateId}
                      name={names.get(entry.templateId) ?? null}
                      position={i}
                      count={entries.length}
                      websiteId={preview}
                      theme={theme}
                      mayEdit={props.mayEdit}
                      onMove={(delta) => move(i, i + delta)}
                      onRemove={() => void store(entries.filter((e) => e.key !== entry.key))}
                    />
                  ))}
                </ol>
              </SortableContext>
            </DndContext>
          )}
        </main>
      </div>
    </div>
  );
}
