import { useSortable } from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import { Anchor, Button, Group, Text, Title } from '@mantine/core';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { canvasHtml, type ThemeValues } from './documents.ts';

interface KitCardProps {
  /** The entry's place in the kit's list (a kit may hold a template twice). */
  entryKey: string;
  templateId: string;
  name: string | null;
  position: number;
  count: number;
  websiteId: string | null;
  theme: ThemeValues | null;
  mayEdit: boolean;
  onMove(delta: -1 | 1): void;
  onRemove(): void;
}

/**
 * One template of a kit: drawn in the chosen website's theme (the template canvas, in a frame that
 * runs no script), with a handle to drag it (pointer or keyboard), buttons to move or remove it, and
 * a link that opens it in the editor.
 */
export function KitCard(props: KitCardProps) {
  const sortable = useSortable({ id: props.entryKey, disabled: !props.mayEdit });
  const label = props.name ?? 'A deleted template';
  const html = useQuery({
    queryKey: ['page-editor', 'kit-card', props.templateId, props.websiteId, props.theme],
    queryFn: () => canvasHtml({ kind: 'templates', id: props.templateId }, undefined, props.theme, props.websiteId),
    enabled: props.name !== null,
    placeholderData: keepPreviousData,
  });
  const open = `/cms-one/editor/templates/${encodeURIComponent(props.templateId)}${
    props.websiteId ? `?website=${encodeURIComponent(props.websiteId)}` : ''
  }`;
  return (
    <li
      ref={sortable.setNodeRef}
      className="cms-kit-card"
      data-dragging={sortable.isDragging || undefined}
      style={{ transform: CSS.Translate.toString(sortable.transform), transition: sortable.transition }}
    >
      <div className="cms-kit-card-head">
        <div className="cms-kit-card-title">
          {props.mayEdit && (
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
          <Title order={2} size="h5">
            {props.position + 1}. {label}
          </Title>
        </div>
        <Group gap="xs" wrap="wrap">
          {props.name !== null && (
            <Anchor href={open} size="sm" aria-label={`Open in editor: ${label}`}>
              Open in editor
            </Anchor>
          )}
          {props.mayEdit && (
            <>
              <Button
                size="compact-xs"
                variant="default"
                disabled={props.position === 0}
                aria-label={`Move ${label} up`}
                onClick={() => props.onMove(-1)}
              >
                Up
              </Button>
              <Button
                size="compact-xs"
                variant="default"
                disabled={props.position === props.count - 1}
                aria-label={`Move ${label} down`}
                onClick={() => props.onMove(1)}
              >
                Down
              </Button>
              <Button
                size="compact-xs"
                color="red"
                variant="light"
                aria-label={`Remove ${label} from the kit`}
                onClick={props.onRemove}
              >
                Remove
              </Button>
            </>
          )}
        </Group>
      </div>
      {html.isError && (
        <Text size="sm" c="red.8">
          The template could not be drawn: {(html.error as Error).message}
        </Text>
      )}
      {html.data && (
        <iframe
          title={`Template ${label}`}
          className="cms-kit-frame"
          sandbox="allow-same-origin"
          srcDoc={html.data}
          data-ready={html.isFetching ? undefined : 'true'}
        />
      )}
    </li>
  );
}
