import {
  Anchor,
  Button,
  Center,
  Divider,
  Drawer,
  Group,
  Image,
  JsonInput,
  SegmentedControl,
  Select,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  api,
  confirmDestructive,
  ErrorState,
  LoadingState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { type Asset, formatBytes } from './model.ts';

function Facts({ asset }: { asset: Asset }) {
  const rows: [string, string][] = [
    ['Path', asset.path],
    ['Type', asset.mimeType],
    ['Size', formatBytes(asset.size)],
    ...(asset.width && asset.height ? [['Dimensions', `${asset.width} × ${asset.height} px`] as [string, string]] : []),
    ['Version', String(asset.version)],
    ['Uploaded', new Date(asset.createdAt).toLocaleString()],
    ['Changed', new Date(asset.updatedAt).toLocaleString()],
  ];
  return (
    <Table variant="vertical" layout="fixed" withTableBorder>
      <Table.Tbody>
        {rows.map(([k, v]) => (
          <Table.Tr key={k}>
            <Table.Th w={110}>{k}</Table.Th>
            <Table.Td style={{ wordBreak: 'break-all' }}>{v}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

/** The image under one of the named presets, as a site would show it (`?preset=<name>`). */
function PresetPreview({ asset }: { asset: Asset }) {
  const presets = useQuery({
    queryKey: ['assets', 'presets'],
    queryFn: async () => unwrap(await api.GET('/api/v1/dam/presets')).presets,
  });
  const [name, setName] = useState<string | null>(null);
  if (presets.error) return <ErrorState error={presets.error} />;
  if (!presets.data) return null;
  if (presets.data.length === 0)
    return (
      <Text size="sm" c="dimmed">
        No image presets are defined yet; sites can only use the original and its thumbnails.
      </Text>
    );
  const preset = presets.data.find((p) => p.name === name);
  return (
    <Stack gap="xs">
      <Select
        label="Preview with an image preset"
        placeholder="Choose a preset"
        data={presets.data.map((p) => ({
          value: p.name,
          label: `${p.name} (${p.width ?? 'auto'} × ${p.height ?? 'auto'}, ${p.fit}, ${p.format})`,
        }))}
        value={name}
        onChange={setName}
        clearable
        clearButtonProps={{ 'aria-label': 'Clear preview with an image preset' }}
      />
      {preset && (
        <Center bg="gray.1" p="xs">
          <Image
            src={`${asset.url}&preset=${encodeURIComponent(preset.name)}`}
            alt={`${asset.filename} with the preset ${preset.name}`}
            maw="100%"
            fit="contain"
          />
        </Center>
      )}
    </Stack>
  );
}

function MoveForm({ asset, onMoved }: { asset: Asset; onMoved: (a: Asset) => void }) {
  const [folder, setFolder] = useState(asset.folder);
  const [filename, setFilename] = useState(asset.filename);
  useEffect(() => {
    setFolder(asset.folder);
    setFilename(asset.filename);
  }, [asset.folder, asset.filename]);
  const changed = folder !== asset.folder || filename !== asset.filename;
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        try {
          const moved = unwrap(
            await api.POST('/api/v1/dam/assets/move', { body: { id: asset.id, folder: folder.trim(), filename } }),
          );
          showSaved(`Now at ${moved.path}`);
          onMoved(moved);
        } catch (err) {
          showSaveError(err);
        }
      }}
    >
      <Stack gap="xs">
        <Title order={3} size="h5">
          Move or rename
        </Title>
        <TextInput
          label="Folder"
          description="Empty for the top of the library; a new folder is made"
          value={folder}
          onChange={(e) => setFolder(e.currentTarget.value)}
        />
        <TextInput label="File name" value={filename} onChange={(e) => setFilename(e.currentTarget.value)} required />
        <Button type="submit" variant="light" disabled={!changed || !filename.trim()} w="fit-content">
          Move / rename
        </Button>
      </Stack>
    </form>
  );
}

function MetadataForm({ asset, onSaved }: { asset: Asset; onSaved: (a: Asset) => void }) {
  const initial = JSON.stringify(asset.metadata ?? {}, null, 2);
  const [text, setText] = useState(initial);
  const [error, setError] = useState<string>();
  useEffect(() => setText(initial), [initial]);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        let metadata: unknown;
        try {
          metadata = JSON.parse(text || '{}');
        } catch {
          return setError('Not valid JSON');
        }
        if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
          return setError('Metadata is a JSON object: { "alt": "..." }');
        setError(undefined);
        try {
          const saved = unwrap(
            await api.PATCH('/api/v1/dam/assets/metadata', {
              body: { id: asset.id, metadata: metadata as Record<string, never>, merge: false },
            }),
          );
          showSaved('Metadata saved');
          onSaved(saved);
        } catch (err) {
          setError(err instanceof Error ? err.message : 'Not saved');
        }
      }}
    >
      <Stack gap="xs">
        <JsonInput
          label="Metadata"
          description="A JSON object, for example alternative text, credits, tags"
          value={text}
          onChange={setText}
          error={error}
          autosize
          minRows={3}
          maxRows={12}
          formatOnBlur
        />
        <Button type="submit" variant="light" disabled={text === initial} w="fit-content">
          Save metadata
        </Button>
      </Stack>
    </form>
  );
}

/** One asset's details and actions, in a drawer the URL opens (`?asset=<id>`). */
export function AssetDrawer({ id, onClose }: { id: string; onClose: () => void }) {
  const can = useCan();
  const client = useQueryClient();
  const query = useQuery({
    queryKey: ['assets', 'asset', id],
    queryFn: async () => unwrap(await api.GET('/api/v1/dam/assets/{id}', { params: { path: { id } } })),
    enabled: Boolean(id),
  });
  const changed = async (a: Asset) => {
    client.setQueryData(['assets', 'asset', a.id], a);
    await client.invalidateQueries({ queryKey: ['assets', 'list'] });
    await client.invalidateQueries({ queryKey: ['assets', 'folders'] });
  };
  const asset = query.data;
  const manage = can('assets:manage');
  return (
    <Drawer
      opened={Boolean(id)}
      onClose={onClose}
      position="right"
      size="lg"
      title={asset ? asset.filename : 'File'}
      closeButtonProps={{ 'aria-label': 'Close the file' }}
    >
      {query.isPending ? (
        <LoadingState label="Loading the file" />
      ) : query.error ? (
        <ErrorState error={query.error} onRetry={() => query.refetch()} />
      ) : (
        asset && (
          <Stack>
            {asset.mimeType.startsWith('image/') ? (
              <Center bg="gray.1" p="xs">
                <Image src={asset.thumbnails.at(-1)?.url ?? asset.url} alt={asset.filename} mah={320} fit="contain" />
              </Center>
            ) : null}
            <Group gap="md">
              <Anchor underline="always" href={asset.url} target="_blank" rel="noreferrer" size="sm">
                Open the original
              </Anchor>
              {asset.visibility === 'public' && (
                <Anchor underline="always" href={asset.publicUrl} target="_blank" rel="noreferrer" size="sm">
                  Public reference
                </Anchor>
              )}
            </Group>
            <Facts asset={asset} />
            <Stack gap={4}>
              <Text size="sm" fw={500} id="asset-visibility-label">
                Visibility
              </Text>
              <SegmentedControl
                aria-labelledby="asset-visibility-label"
                disabled={!manage}
                value={asset.visibility}
                onChange={async (v) => {
                  try {
                    const saved = unwrap(
                      await api.PATCH('/api/v1/dam/assets/metadata', {
                        body: {
                          id: asset.id,
                          metadata: {},
                          merge: true,
                          visibility: v as 'public' | 'private',
                        },
                      }),
                    );
                    showSaved(v === 'public' ? 'The file is public' : 'The file is private');
                    await changed(saved);
                  } catch (err) {
                    showSaveError(err);
                  }
                }}
                data={[
                  { value: 'public', label: 'Public' },
                  { value: 'private', label: 'Private' },
                ]}
                w="fit-content"
              />
              <Text size="xs" c="dimmed">
                {asset.visibility === 'public'
                  ? 'Anyone with the link can load it.'
                  : 'Only signed-in users can load it; sites cannot show it.'}
              </Text>
            </Stack>
            {asset.mimeType.startsWith('image/') && <PresetPreview asset={asset} />}
            <Divider />
            {manage ? (
              <>
                <MetadataForm asset={asset} onSaved={changed} />
                <Divider />
                <MoveForm asset={asset} onMoved={changed} />
                <Divider />
                <Button
                  color="red"
                  variant="light"
                  w="fit-content"
                  onClick={async () => {
                    const versions = asset.version > 1 ? ` and its ${asset.version - 1} earlier versions` : '';
                    const ok = await confirmDestructive({
                      title: `Delete ${asset.filename}?`,
                      removes: `the file ${asset.path}${asset.thumbnails.length ? `, its ${asset.thumbnails.length} thumbnails` : ''}${versions}. Pages and data that link to it will show a broken link.`,
                      confirmLabel: 'Delete file',
                    });
                    if (!ok) return;
                    try {
                      unwrap(await api.DELETE('/api/v1/dam/asset', { params: { query: { id: asset.id } } }));
                      showSaved(`${asset.filename} deleted`);
                      onClose();
                      // The record is gone: its own query is left alone (refetching it while the drawer
                      // closes would ask for it again, a 404); only the lists are refreshed.
                      await client.invalidateQueries({ queryKey: ['assets', 'list'] });
                      await client.invalidateQueries({ queryKey: ['assets', 'folders'] });
                    } catch (err) {
                      showSaveError(err);
                    }
                  }}
                >
                  Delete file
                </Button>
              </>
            ) : (
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  Metadata
                </Text>
                <Text size="sm" component="pre" style={{ whiteSpace: 'pre-wrap' }}>
                  {JSON.stringify(asset.metadata ?? {}, null, 2)}
                </Text>
              </Stack>
            )}
          </Stack>
        )
      )}
    </Drawer>
  );
}
