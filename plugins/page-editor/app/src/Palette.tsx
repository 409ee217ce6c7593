import { useDraggable } from '@dnd-kit/core';
import { Button, Group, Stack, Text, Title } from '@mantine/core';
import type { BlockSource } from './documents.ts';
import type { ContentNode } from './tree.ts';

/** The blocks every page can use, before the website's own snippets, templates and kits. */
export const BASIC_BLOCKS: ReadonlyArray<{ id: string; name: string; node: ContentNode }> = [
  { id: 'heading', name: 'Heading', node: { type: 'h2', text: 'Heading' } },
  { id: 'paragraph', name: 'Paragraph', node: { type: 'p', text: 'Write something here.' } },
  { id: 'image', name: 'Image', node: { type: 'img', props: { src: '', alt: '' } } },
  { id: 'link', name: 'Link', node: { type: 'a', props: { href: '/' }, text: 'Link' } },
  { id: 'button', name: 'Button', node: { type: 'a', props: { href: '/', className: 'button' }, text: 'Button' } },
  { id: 'list', name: 'List', node: { type: 'ul', children: [{ type: 'li', text: 'First item' }] } },
  { id: 'quote', name: 'Quote', node: { type: 'blockquote', text: 'A quotation.' } },
  { id: 'section', name: 'Section', node: { type: 'section', children: [] } },
  // The website's menu (its website paths), drawn by the content plugin as navigation.
  { id: 'menu', name: 'Menu', node: { type: 'menu', props: { label: 'Menu' } } },
];

/** A palette entry: dragged onto the canvas or the outline, or added with its button. */
export type PaletteItem = { kind: 'basic'; id: string; name: string } | { kind: 'source'; source: BlockSource };

export const paletteId = (item: PaletteItem) =>
  item.kind === 'basic' ? `palette:basic:${item.id}` : `palette:${item.source.kind}:${item.source.id}`;

function Block(props: { item: PaletteItem; onAdd(item: PaletteItem): void }) {
  const name = props.item.kind === 'basic' ? props.item.name : props.item.source.name;
  const drag = useDraggable({ id: paletteId(props.item), data: { item: props.item } });
  return (
    <Group gap={4} wrap="nowrap" className="cms-block" data-dragging={drag.isDragging || undefined}>
      <button
        type="button"
        ref={drag.setNodeRef}
        className="cms-block-handle"
        aria-label={`Drag block ${name}`}
        {...drag.attributes}
        {...drag.listeners}
      >
        {name}
      </button>
      <Button size="compact-xs" variant="subtle" aria-label={`Add ${name}`} onClick={() => props.onAdd(props.item)}>
        Add
      </Button>
    </Group>
  );
}

/**
 * Blocks: the basic ones, then the snippets, templates and kits the API lists. Drag one onto the
 * canvas (it goes to the end of the page) or onto a node of the outline (it goes after that node);
 * "Add" puts it after the selected node, or into it when the selection is a section.
 */
export function Palette(props: { sources: BlockSource[]; onAdd(item: PaletteItem): void }) {
  const groups: Array<{ title: string; items: PaletteItem[] }> = [
    { title: 'Basic blocks', items: BASIC_BLOCKS.map((b) => ({ kind: 'basic', id: b.id, name: b.name })) },
    ...(['snippet', 'template', 'kit'] as const).map((kind) => ({
      title: { snippet: 'Snippets', template: 'Templates', kit: 'Kits' }[kind],
      items: props.sources.filter((s) => s.kind === kind).map((source): PaletteItem => ({ kind: 'source', source })),
    })),
  ];
  return (
    <Stack gap="sm">
      {groups.map((group) => (
        <section key={group.title} aria-label={group.title}>
          <Title order={3} size="h6" mb={4}>
            {group.title}
          </Title>
          {group.items.length === 0 ? (
            <Text size="xs" c="dimmed">
              None yet.
            </Text>
          ) : (
            <Stack gap={2}>
              {group.items.map((item) => (
                <Block key={paletteId(item)} item={item} onAdd={props.onAdd} />
              ))}
            </Stack>
          )}
        </section>
      ))}
    </Stack>
  );
}
