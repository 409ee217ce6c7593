import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { memo, useDeferredValue } from 'react';
import { type NodePath, nodeLabel, type OutlineRow } from './tree.ts';

interface RowProps {
  row: OutlineRow;
  /** What the root is called: Page, Snippet, Template, Region. */
  rootName: string;
  selected: boolean;
  onSelect(path: NodePath): void;
}

/** One node of the outline: selectable by click or keyboard, draggable by its handle (pointer or keyboard). */
const Row = memo(
  function Row({ row, rootName, selected, onSelect }: RowProps) {
    const root = row.path.length === 0;
    const sortable = useSortable({ id: row.key, disabled: root });
    const style = {
      transform: CSS.Translate.toString(sortable.transform),
      transition: sortable.transition,
      paddingLeft: `${0.5 + Math.min(row.depth, 12) * 0.9}rem`,
    };
    const label = nodeLabel(row.node);
    return (
      <li
        ref={sortable.setNodeRef}
        style={style}
        className="cms-outline-row"
        data-selected={selected || undefined}
        data-dragging={sortable.isDragging || undefined}
        data-node-key={row.key}
      >
        {!root && (
          <button
            type="button"
            className="cms-drag-handle"
            aria-label={`Move ${label}`}
            {...sortable.attributes}
            {...sortable.listeners}
          >
            ⠿
          </button>
        )}
        <button
          type="button"
          className="cms-outline-label"
          aria-current={selected ? 'true' : undefined}
          onClick={() => onSelect(row.path)}
        >
          {root ? `${rootName} (${row.node.type})` : label}
          {row.node.props?.binding ? <span className="cms-outline-bound"> · gateway data</span> : null}
        </button>
      </li>
    );
  },
  // Rows are rebuilt on every change; a row whose node (shared by unchanged subtrees), place and
  // selection are the same draws the same, so typing in one node redraws its ancestors only.
  (a, b) =>
    a.row.node === b.row.node &&
    a.row.key === b.row.key &&
    a.selected === b.selected &&
    a.onSelect === b.onSelect &&
    a.rootName === b.rootName,
);

/**
 * The node tree as an indented list in document order; rows reorder by drag and drop. Plain
 * elements (no kit component per row): a page has hundreds of nodes, and the list is drawn after
 * the canvas (a deferred value), so opening a big page shows the canvas first.
 */
export function Outline(props: {
  rows: OutlineRow[];
  rootName: string;
  selectedKey: string | null;
  onSelect(path: NodePath): void;
}) {
  const rows = useDeferredValue(props.rows, props.rows.slice(0, 1));
  return (
    <ul className="cms-outline" aria-label="Outline">
      {rows.map((row) => (
        <Row
          key={row.key}
          row={row}
          rootName={props.rootName}
          selected={row.key === props.selectedKey}
          onSelect={props.onSelect}
        />
      ))}
    </ul>
  );
}
