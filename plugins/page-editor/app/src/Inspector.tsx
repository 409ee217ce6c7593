import {
  Button,
  Group,
  Image,
  Modal,
  Select,
  SimpleGrid,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
  UnstyledButton,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, useRef, useState } from 'react';
import { AiTextPanel } from './AiTextPanel.tsx';
import { DataBindingPanel } from './DataBindingPanel.tsx';
import { GatewayBindingPanel } from './GatewayBindingPanel.tsx';
import { isInlineBlock } from './richtext.ts';
import { type Asset, listImages, listPages } from './documents.ts';
import type { ContentNode } from './tree.ts';

const TEXT_TYPES = ['p', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'blockquote', 'li', 'span', 'strong', 'em', 'small'];
const isImage = (node: ContentNode) => node.type === 'img' || node.type === 'image';
const isLink = (node: ContentNode) => node.type === 'a' || node.type === 'link';
/** A node whose text the inspector edits: its own text, when it holds no element children. */
/** The rich text editor (TipTap) is a chunk of its own, loaded when a block is formatted. */
const RichText = lazy(() => import('./RichText.tsx'));

const isMenu = (node: ContentNode) => node.type === 'menu';
const hasEditableText = (node: ContentNode) =>
  node.type === 'text' || (!isImage(node) && !isMenu(node) && (node.children ?? []).length === 0);

function AssetPicker(props: { opened: boolean; onClose(): void; onPick(asset: Asset): void }) {
  const [search, setSearch] = useState('');
  const images = useQuery({
    queryKey: ['page-editor', 'images', search],
    queryFn: () => listImages(search),
    enabled: props.opened,
  });
  return (
    <Modal opened={props.opened} onClose={props.onClose} title="Choose an image" size="lg">
      <Stack>
        <TextInput label="Search the asset library" value={search} onChange={(e) => setSearch(e.currentTarget.value)} />
        {images.isLoading && <Text size="sm">Loading images…</Text>}
        {images.isError && (
          <Text size="sm" c="red.8">
            The asset library could not be read: {(images.error as Error).message}
          </Text>
        )}
        {images.data?.length === 0 && (
          <Text size="sm">No images found. Upload some in the dashboard's asset library.</Text>
        )}
        <SimpleGrid cols={{ base: 2, sm: 4 }}>
          {images.data?.map((asset) => (
            <UnstyledButton
              key={asset.id}
              onClick={() => props.onPick(asset)}
              aria-label={`Use ${asset.name}`}
              className="cms-asset"
            >
              <Image src={asset.thumbnailUrl ?? asset.url} alt="" h={90} fit="contain" />
              <Text size="xs" truncate>
                {asset.name}
              </Text>
            </UnstyledButton>
          ))}
        </SimpleGrid>
      </Stack>
    </Modal>
  );
}

/**
 * The node's text. The field keeps what is typed in its own state, so a keystroke redraws only the
 * field (and the canvas, which the editor patches at once); the tree follows in a transition. A
 * change from elsewhere (undo, redo, a restore) replaces the field's text.
 */
function TextField(props: { text: string; onText(text: string): void }) {
  const [value, setValue] = useState(props.text);
  const typed = useRef(props.text);
  useEffect(() => {
    if (props.text !== typed.current) {
      typed.current = props.text;
      setValue(props.text);
    }
  }, [props.text]);
  return (
    <Textarea
      label="Text"
      autosize
      minRows={2}
      maxRows={12}
      value={value}
      onChange={(e) => {
        const text = e.currentTarget.value;
        typed.current = text;
        setValue(text);
        props.onText(text);
      }}
    />
  );
}

interface InspectorProps {
  node: ContentNode | undefined;
  isRoot: boolean;
  websiteId: string | null | undefined;
  onChange(change: (node: ContentNode) => ContentNode, field: string): void;
  onText(text: string): void;
  onMove(delta: -1 | 1): void;
  onDuplicate(): void;
  onDelete(): void;
}

/** The selected node's fields: its element, text, link target, image (from the asset library), class. */
export function Inspector(props: InspectorProps) {
  const [picking, setPicking] = useState(false);
  // Formatted text opens in the rich text editor at once; plain text once the user asks for formats.
  const [richText, setRichText] = useState(
    () =>
      !!props.node &&
      TEXT_TYPES.includes(props.node.type) &&
      (props.node.children?.length ?? 0) > 0 &&
      isInlineBlock(props.node),
  );
  const pages = useQuery({
    queryKey: ['page-editor', 'pages', props.websiteId],
    queryFn: () => listPages(props.websiteId!),
    enabled: !!props.websiteId && !!props.node && isLink(props.node),
  });
  const node = props.node;
  if (!node)
    return (
      <Text size="sm" c="dimmed">
        Select a block on the canvas or in the outline to edit it.
      </Text>
    );
  const setProp = (name: string, value: string) =>
    props.onChange((n) => ({ ...n, props: { ...(n.props ?? {}), [name]: value } }), name);
  const prop = (name: string) => (typeof node.props?.[name] === 'string' ? (node.props[name] as string) : '');
  return (
    <Stack gap="sm">
      <Title order={2} size="h5">
        {props.isRoot ? 'Page root' : `Block: ${node.type}`}
      </Title>
      {TEXT_TYPES.includes(node.type) && (
        <Select
          label="Element"
          data={TEXT_TYPES}
          value={node.type}
          allowDeselect={false}
          onChange={(value) => value && props.onChange((n) => ({ ...n, type: value }), 'type')}
        />
      )}
      {hasEditableText(node) && !richText && <TextField text={node.text ?? ''} onText={props.onText} />}
      {hasEditableText(node) && !richText && node.type !== 'text' && (
        <AiTextPanel text={node.text ?? ''} onAccept={props.onText} />
      )}
      {TEXT_TYPES.includes(node.type) && isInlineBlock(node) && !richText && (
        <Button size="xs" variant="light" onClick={() => setRichText(true)}>
          Format the text (bold, italic, links)
        </Button>
      )}
      {richText && (
        <Suspense fallback={<Text size="sm">Loading the text editor…</Text>}>
          <RichText node={node} onChange={(next) => props.onChange(() => next, 'richtext')} />
        </Suspense>
      )}
      {isLink(node) && (
        <>
          <TextInput
            label="Link address"
            value={prop('href')}
            onChange={(e) => setProp('href', e.currentTarget.value)}
          />
          <Select
            label="Link to a page of this website"
            placeholder={pages.isLoading ? 'Loading pages…' : 'Choose a page'}
            searchable
            clearable
            data={(pages.data ?? []).map((p) => ({ value: p.path, label: `${p.title} (${p.locale} ${p.path})` }))}
            value={null}
            onChange={(value) => value && setProp('href', value)}
          />
        </>
      )}
      {isMenu(node) && (
        <>
          <Text size="sm">The website's menu: its entries are edited in the "More" tab.</Text>
          <TextInput
            label="Name of the navigation"
            description="What screen readers announce, e.g. Main menu"
            value={prop('label')}
            onChange={(e) => setProp('label', e.currentTarget.value)}
          />
          <Select
            label="Levels shown"
            data={[{ value: '', label: 'All' }, ...['1', '2', '3'].map((v) => ({ value: v, label: v }))]}
            value={node.props?.depth === undefined ? '' : String(node.props.depth)}
            allowDeselect={false}
            onChange={(value) =>
              props.onChange((n) => {
                const { depth: _depth, ...rest } = n.props ?? {};
                return { ...n, props: value ? { ...rest, depth: Number(value) } : rest };
              }, 'depth')
            }
          />
        </>
      )}
      {isImage(node) && (
        <>
          {prop('src') ? (
            <Image src={prop('src')} alt="" h={120} fit="contain" />
          ) : (
            <Text size="sm">No image chosen yet.</Text>
          )}
          <Button variant="light" onClick={() => setPicking(true)}>
            Choose from the asset library
          </Button>
          <TextInput
            label="Image address"
            value={prop('src')}
            onChange={(e) => setProp('src', e.currentTarget.value)}
          />
          <TextInput
            label="Alternative text"
            description="What the image shows, for people who cannot see it"
            value={prop('alt')}
            onChange={(e) => setProp('alt', e.currentTarget.value)}
          />
          <AssetPicker
            opened={picking}
            onClose={() => setPicking(false)}
            onPick={(asset) => {
              setPicking(false);
              props.onChange(
                (n) => ({
                  ...n,
                  props: { ...(n.props ?? {}), src: asset.url, alt: prop('alt') || asset.name.replace(/\.[^.]+$/, '') },
                }),
                'image',
              );
            }}
          />
        </>
      )}
      {node.type !== 'text' && (
        <TextInput
          label="CSS class"
          value={prop('className')}
          onChange={(e) => setProp('className', e.currentTarget.value)}
        />
      )}
      <DataBindingPanel node={node} onChange={props.onChange} />
      {!props.isRoot && node.type !== 'text' && <GatewayBindingPanel node={node} onChange={props.onChange} />}
      {!props.isRoot && (
        <Group gap="xs">
          <Button size="xs" variant="default" onClick={() => props.onMove(-1)}>
            Move up
          </Button>
          <Button size="xs" variant="default" onClick={() => props.onMove(1)}>
            Move down
          </Button>
          <Button size="xs" variant="default" onClick={props.onDuplicate}>
            Duplicate
          </Button>
          <Button size="xs" color="red" variant="light" onClick={props.onDelete}>
            Delete block
          </Button>
        </Group>
      )}
    </Stack>
  );
}
