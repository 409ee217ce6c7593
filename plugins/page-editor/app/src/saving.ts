import { useCallback, useEffect, useRef, useState } from 'react';
import { ApiError, discardingChanges } from '../../../admin-ui/app/src/sdk/index.ts';
import { type AutosaveSettings, type EditedDocument, loadDocument, saveDocument } from './documents.ts';
import type { Snapshot } from './history.ts';

/**
 * The save state the editor shows: `saved` (nothing to save), `unsaved` (changes wait for the next
 * autosave or a manual save), `saving`, `failed` (the last save did not go through; the changes are
 * kept and retried), `locked` (a locked snippet refused an autosave: only a manual save stores),
 * `conflict` (the document changed elsewhere since it was loaded: the editor decides).
 */
export type SaveStatus = 'saved' | 'unsaved' | 'saving' | 'failed' | 'locked' | 'conflict';

/**
 * Why autosave waits: `locked` (a locked snippet refuses autosaves until it is unlocked), `refused`
 * (the API said no to this user: sending the same again on every interval would not change that,
 * so autosave waits until a save by hand goes through). An ended session pauses nothing: the
 * save waits for the sign-in dialog and goes through after it (the SDK's `sessionFetch`).
 */
export type AutosavePause = 'locked' | 'refused' | null;

export interface Saving {
  status: SaveStatus;
  /** The message of the last failure. */
  problem: string | null;
  /** Why autosave is paused, or null while it runs. */
  autosavePaused: AutosavePause;
  doc: EditedDocument;
  lastSavedAt: Date | null;
  save(kind: 'auto' | 'manual', opts?: { over?: boolean; published?: boolean }): Promise<boolean>;
  /** After a conflict: the version stored now (the caller keeps the editor's own state for undo). */
  loadTheirs(): Promise<EditedDocument>;
  /** The document as stored after a restore or another write the caller made. */
  adopt(doc: EditedDocument, revision: number): void;
  /** The tag the editor's state is based on (for writes made outside `save`). */
  currentTag(): string;
  /**
   * A write that changed only the record's flags (the snippet lock): its new tag and flags, the
   * editor's changes stay unsaved if they were; unlocking resumes autosave.
   */
  flagsChanged(stored: EditedDocument): void;
  /** A write of the caller's own based on the current tag (a thumbnail) moved the tag on. */
  tagMoved(from: string, to: string): void;
}

/**
 * Saving with autosave on the interval of `/cms-one/settings/autosave`. Every save sends `If-Match`
 * with the tag of the state it is based on, so a change saved elsewhere is never overwritten
 * silently: the answer 412 turns the status to `conflict` and nothing is lost (the editor's state
 * stays, the stored state can be loaded as an undoable step).
 */
export function useSaving(opts: {
  initial: EditedDocument;
  settings: AutosaveSettings;
  present: Snapshot;
  revision: number;
  /** False for a user whose keys do not allow saving: nothing is sent on its own. */
  mayEdit: boolean;
}): Saving {
  const [doc, setDoc] = useState(opts.initial);
  const [status, setStatus] = useState<SaveStatus>('saved');
  const [problem, setProblem] = useState<string | null>(null);
  const [autosavePaused, setAutosavePaused] = useState<AutosavePause>(null);
  const [lastSavedAt, setLastSavedAt] = useState<Date | null>(null);
  const latest = useRef({ present: opts.present, revision: opts.revision });
  latest.current = { present: opts.present, revision: opts.revision };
  const savedRevision = useRef(0);
  const etag = useRef(opts.initial.etag);
  const inFlight = useRef<Promise<boolean> | null>(null);
  const statusRef = useRef(status);
  statusRef.current = status;

  // A change after the last save makes the state unsaved (unless a save or a decision is pending).
  useEffect(() => {
    if (opts.revision !== savedRevision.current && (statusRef.current === 'saved' || statusRef.current === 'failed'))
      setStatus('unsaved');
  }, [opts.revision]);

  const save = useCallback<Saving['save']>(
    async (kind, saveOpts = {}) => {
      if (inFlight.current) await inFlight.current;
      const { present, revision } = latest.current;
      const changed = revision !== savedRevision.current;
      // A save by hand sends the state even when an autosave already put it in the page's working
      // copy: for someone who may publish, a save by hand goes live (the server decides).
      const resend = kind === 'manual' && doc.kind === 'pages' && Boolean(doc.draft);
      if (!changed && !resend && saveOpts.published === undefined) return true;
      const work = (async () => {
        setStatus('saving');
        try {
          const stored = await saveDocument(
            doc,
            {
              ...(changed || resend ? { content: present.tree, title: present.title } : {}),
              ...(saveOpts.published !== undefined ? { published: saveOpts.published } : {}),
            },
            { autosave: kind === 'auto', ifMatch: saveOpts.over ? '*' : etag.current },
          );
          etag.current = stored.etag;
          savedRevision.current = revision;
          setDoc(stored);
          setProblem(null);
          setLastSavedAt(new Date());
          setStatus(latest.current.revision === revision ? 'saved' : 'unsaved');
          // A save that went through shows the API takes this user's saves again.
          setAutosavePaused((paused) => (paused === 'refused' ? null : paused));
          return true;
        } catch (err) {
          const apiError = err instanceof ApiError ? err : null;
          setProblem(apiError?.message ?? (err as Error).message);
          if (apiError?.status === 423) {
            setAutosavePaused('locked');
            setStatus('locked');
          } else if (apiError?.status === 403 || apiError?.status === 401) {
            setAutosavePaused('refused');
            setStatus('failed');
          } else if (apiError?.status === 412) setStatus('conflict');
          else setStatus('failed');
          return false;
        }
      })();
      inFlight.current = work;
      try {
        return await work;
      } finally {
        inFlight.current = null;
      }
    },
    [doc],
  );

  // Autosave: on the interval, when there is something to save and no decision is pending.
  useEffect(() => {
    if (!opts.settings.enabled || autosavePaused || !opts.mayEdit) return;
    const timer = setInterval(() => {
      const s = statusRef.current;
      if ((s === 'unsaved' || s === 'failed') && !inFlight.current) void save('auto');
    }, Math.max(5, opts.settings.intervalSeconds) * 1000);
    return () => clearInterval(timer);
  }, [opts.settings.enabled, opts.settings.intervalSeconds, autosavePaused, opts.mayEdit, save]);

  // Leaving with unsaved changes asks first.
  useEffect(() => {
    const warn = (event: BeforeUnloadEvent) => {
      if (latest.current.revision !== savedRevision.current && !discardingChanges()) event.preventDefault();
    };
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, []);

  const loadTheirs = useCallback(async () => {
    const stored = await loadDocument(doc.kind, doc.id, doc);
    etag.current = stored.etag;
    setDoc(stored);
    setProblem(null);
    return stored;
  }, [doc]);

  const adopt = useCallback((stored: EditedDocument, revision: number) => {
    etag.current = stored.etag;
    savedRevision.current = revision;
    setDoc(stored);
    setProblem(null);
    setLastSavedAt(new Date());
    setStatus('saved');
  }, []);

  const currentTag = useCallback(() => etag.current, []);

  const flagsChanged = useCallback((stored: EditedDocument) => {
    etag.current = stored.etag;
    setDoc(stored);
    if (stored.locked === false) {
      setAutosavePaused((paused) => (paused === 'locked' ? null : paused));
      if (statusRef.current === 'locked') setStatus('unsaved');
    }
  }, []);

  const tagMoved = useCallback((from: string, to: string) => {
    if (etag.current === from) etag.current = to;
  }, []);

  return {
    status,
    problem,
    autosavePaused,
    doc,
    lastSavedAt,
    save,
    loadTheirs,
    adopt,
    currentTag,
    flagsChanged,
    tagMoved,
  };
}
