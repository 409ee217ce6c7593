import { JsonInput } from '@mantine/core';

/** Parses the JSON of a node tree field, or says what is wrong with it. */
export function parseTree(text: string): { value?: unknown; error?: string } {
  if (!text.trim()) return { value: { type: 'div', children: [] } };
  try {
    return { value: JSON.parse(text) };
  } catch (err) {
    return { error: `Not valid JSON: ${(err as Error).message}` };
  }
}

/**
 * A node tree (`{ type, props, text, children }`) as JSON, for the fields the visual editor also
 * edits: a way to fix or paste a tree without the canvas.
 */
export function TreeInput(props: {
  label: string;
  description?: string;
  value: string;
  error?: string;
  readOnly: boolean;
  onChange: (v: string) => void;
}) {
  return (
    <JsonInput
      label={props.label}
      description={props.description}
      value={props.value}
      onChange={props.onChange}
      error={props.error}
      readOnly={props.readOnly}
      autosize
      minRows={6}
      maxRows={24}
      validationError="Not valid JSON"
      styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
    />
  );
}

/** A tree as the text the input shows. */
export const treeText = (tree: unknown) => JSON.stringify(tree ?? { type: 'div', children: [] }, null, 2);
