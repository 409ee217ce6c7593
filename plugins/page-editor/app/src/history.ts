import type { ContentNode, NodePath } from './tree.ts';

/** What undo and redo move between: the tree and the title. */
export interface Snapshot {
  tree: ContentNode;
  title: string;
}

export interface HistoryState {
  past: Snapshot[];
  present: Snapshot;
  future: Snapshot[];
  /** Grows with every change; the save status compares it with the revision last saved. */
  revision: number;
  /** Consecutive edits with the same key (typing in one field) are one undo step. */
  coalesce: string | null;
  selected: NodePath | null;
}

export type HistoryAction =
  | { type: 'edit'; snapshot: Snapshot; coalesce?: string; select?: NodePath | null }
  | { type: 'undo' }
  | { type: 'redo' }
  | { type: 'select'; path: NodePath | null }
  /**
   * Not the user's change (ids the server assigned on save): applied to the present tree and to the
   * undo and redo steps, so undo never brings back a tree without them; no step, no new revision.
   */
  | { type: 'amend'; present: (tree: ContentNode) => ContentNode; steps: (tree: ContentNode) => ContentNode }
  /**
   * The name was stored on its own (a rename): every step gets it, so neither undo nor the next save
   * brings the old name back; no step, no new revision.
   */
  | { type: 'retitle'; title: string }
  | { type: 'reset'; snapshot: Snapshot };

/** Steps kept for undo: enough for a working session, bounded for a 20,000-node tree. */
const MAX_STEPS = 200;

export const initialHistory = (snapshot: Snapshot): HistoryState => ({
  past: [],
  present: snapshot,
  future: [],
  revision: 0,
  coalesce: null,
  selected: null,
});

export function historyReducer(state: HistoryState, action: HistoryAction): HistoryState {
  switch (action.type) {
    case 'edit': {
      const merge = action.coalesce !== undefined && action.coalesce === state.coalesce;
      return {
        past: merge ? state.past : [...state.past, state.present].slice(-MAX_STEPS),
        present: action.snapshot,
        future: [],
        revision: state.revision + 1,
        coalesce: action.coalesce ?? null,
        selected: action.select !== undefined ? action.select : state.selected,
      };
    }
    case 'undo': {
      const previous = state.past[state.past.length - 1];
      if (!previous) return state;
      return {
        ...state,
        past: state.past.slice(0, -1),
        present: previous,
        future: [state.present, ...state.future],
        revision: state.revision + 1,
        coalesce: null,
      };
    }
    case 'redo': {
      const [next, ...rest] = state.future;
      if (!next) return state;
      return {
        ...state,
        past: [...state.past, state.present],
        present: next,
        future: rest,
        revision: state.revision + 1,
        coalesce: null,
      };
    }
    case 'select':
      return { ...state, selected: action.path, coalesce: null };
    case 'amend': {
      const step = (s: Snapshot) => {
        const tree = action.steps(s.tree);
        return tree === s.tree ? s : { ...s, tree };
      };
      const tree = action.present(state.present.tree);
      if (
        tree === state.present.tree &&
        state.past.every((s) => step(s) === s) &&
        state.future.every((s) => step(s) === s)
      )
        return state;
      return {
        ...state,
        present: tree === state.present.tree ? state.present : { ...state.present, tree },
        past: state.past.map(step),
        future: state.future.map(step),
      };
    }
    case 'retitle': {
      const named = (s: Snapshot) => (s.title === action.title ? s : { ...s, title: action.title });
      return {
        ...state,
        present: named(state.present),
        past: state.past.map(named),
        future: state.future.map(named),
      };
    }
    case 'reset':
      return initialHistory(action.snapshot);
  }
}
