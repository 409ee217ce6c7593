import { forwardRef, useEffect, useImperativeHandle, useRef } from 'react';
import { type NodePath, parsePathKey, pathKey } from './tree.ts';

/** The editor's marks inside the canvas: the selected node, the one under the pointer, bound nodes. */
const EDITOR_STYLES = `
[data-cms-node]{cursor:default}
[data-cms-node]:hover{outline:1px dashed #4c6ef5;outline-offset:1px}
[data-cms-selected]{outline:2px solid #1c7ed6 !important;outline-offset:2px}
[data-cms-diff=added]{outline:2px solid #2b8a3e;outline-offset:1px;background-color:rgb(43 138 62 / 0.08)}
[data-cms-bound]{outline:2px dotted #0c8599;outline-offset:2px;min-height:1.5rem}
[data-cms-bound]:empty::before{content:"Gateway data";font:12px/1.5rem sans-serif;color:#0b7285}
[data-cms-diff=changed]{outline:2px dashed #d9480f;outline-offset:1px;background-color:rgb(217 72 15 / 0.08)}
`;

/** Nodes to mark as added or changed since a version of the history (canvas keys: `r.0.2`). */
export interface DiffMarks {
  added: string[];
  changed: string[];
}

export interface CanvasHandle {
  /** Shows a node's new text at once, without waiting for the next render (false when it cannot). */
  patchText(path: NodePath, text: string): boolean;
  /** The canvas document (for thumbnails and measurements). */
  document(): Document | null;
}

interface CanvasProps {
  /** The whole canvas document from the content API. */
  html: string | null;
  selected: NodePath | null;
  onSelect(path: NodePath): void;
  width: number | null;
  title: string;
  /** Shown while a version of the history is open. */
  diff: DiffMarks | null;
}

function markDiff(doc: Document, marks: DiffMarks | null) {
  for (const el of doc.querySelectorAll('[data-cms-diff]')) el.removeAttribute('data-cms-diff');
  for (const [kind, keys] of Object.entries(marks ?? {}) as Array<[string, string[]]>)
    for (const key of keys) doc.querySelector(`[data-cms-node="${key}"]`)?.setAttribute('data-cms-diff', kind);
}

function mark(doc: Document, selected: NodePath | null) {
  for (const el of doc.querySelectorAll('[data-cms-selected]')) el.removeAttribute('data-cms-selected');
  if (!selected) return;
  const el = doc.querySelector(`[data-cms-node="${pathKey(selected)}"]`);
  el?.setAttribute('data-cms-selected', '');
  el?.scrollIntoView({ block: 'nearest' });
}

/**
 * The page as the website shows it, in a frame that runs no script (`sandbox` without
 * `allow-scripts`; same origin so the editor can read and mark its nodes). A new render swaps the
 * document's head and body in place, keeping the scroll position; a click selects the node under it.
 */
export const Canvas = forwardRef<CanvasHandle, CanvasProps>(function Canvas(props, ref) {
  const frame = useRef<HTMLIFrameElement>(null);
  const loaded = useRef(false);
  const selected = useRef(props.selected);
  selected.current = props.selected;
  const onSelect = useRef(props.onSelect);
  onSelect.current = props.onSelect;
  const diff = useRef(props.diff);
  diff.current = props.diff;

  useImperativeHandle(ref, () => ({
    patchText(path, text) {
      const doc = frame.current?.contentDocument;
      // A node of a bound block's template is drawn once per item, filled in: the next drawing shows it.
      const all = doc?.querySelectorAll(`[data-cms-node="${pathKey(path)}"]`);
      const el = all?.length === 1 ? all[0] : null;
      if (!el || el.children.length > 0) return false;
      el.textContent = text;
      return true;
    },
    document: () => frame.current?.contentDocument ?? null,
  }));

  const prepare = (doc: Document) => {
    if (!doc.getElementById('cms-editor-marks')) {
      const style = doc.createElement('style');
      style.id = 'cms-editor-marks';
      style.textContent = EDITOR_STYLES;
      doc.head.appendChild(style);
    }
    mark(doc, selected.current);
    markDiff(doc, diff.current);
  };

  useEffect(() => {
    const iframe = frame.current;
    if (!iframe || props.html === null) return;
    const doc = iframe.contentDocument;
    if (!loaded.current || !doc?.body) {
      iframe.srcdoc = props.html;
      return;
    }
    const next = new DOMParser().parseFromString(props.html, 'text/html');
    doc.title = next.title;
    const theme = doc.querySelector('style[data-cms-theme]');
    const nextTheme = next.querySelector('style[data-cms-theme]');
    if (theme && nextTheme && theme.textContent !== nextTheme.textContent) theme.textContent = nextTheme.textContent;
    doc.body.replaceWith(doc.adoptNode(next.body));
    prepare(doc);
    iframe.setAttribute('data-ready', 'true');
  }, [props.html]);

  useEffect(() => {
    const doc = frame.current?.contentDocument;
    if (doc && loaded.current) mark(doc, props.selected);
  }, [props.selected]);

  useEffect(() => {
    const doc = frame.current?.contentDocument;
    if (doc && loaded.current) markDiff(doc, props.diff);
  }, [props.diff]);

  return (
    <iframe
      ref={frame}
      title={props.title}
      className="cms-canvas-frame"
      sandbox="allow-same-origin"
      style={{ width: props.width ? `${props.width}px` : '100%' }}
      onLoad={() => {
        const doc = frame.current?.contentDocument;
        if (!doc?.body) return;
        loaded.current = true;
        prepare(doc);
        doc.addEventListener('click', (event) => {
          event.preventDefault();
          const target = (event.target as Element | null)?.closest?.('[data-cms-node]');
          const path = target ? parsePathKey(target.getAttribute('data-cms-node') ?? '') : null;
          if (path) onSelect.current(path);
        });
        frame.current?.setAttribute('data-ready', 'true');
      }}
    />
  );
});
