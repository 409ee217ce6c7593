import {
  Anchor,
  Badge,
  Breadcrumbs,
  Button,
  Card,
  Center,
  Group,
  Image,
  Modal,
  Pagination,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  UnstyledButton,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconFile, IconFolder, IconFolderPlus, IconTrash } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';
import { AssetDrawer } from './AssetDrawer.tsx';
import { type Asset, formatBytes, joinPath } from './model.ts';
import { UploadZone } from './UploadZone.tsx';

const PAGE_SIZE = 48;

/** `/admin/assets?folder=a/b`: a link to a folder of the library. */
const folderHref = (path: string) => (path ? `/admin/assets?folder=${encodeURIComponent(path)}` : '/admin/assets');

function FolderTrail({ folder }: { folder: string }) {
  const parts = folder ? folder.split('/') : [];
  return (
    <Breadcrumbs aria-label="Folder" separatorMargin={4}>
      <Anchor underline="always" component={Link} to={folderHref('')} size="sm">
        Library
      </Anchor>
      {parts.map((name, n) => {
        const path = parts.slice(0, n + 1).join('/');
        return n === parts.length - 1 ? (
          <Text key={path} size="sm" aria-current="page">
            {name}
          </Text>
        ) : (
          <Anchor underline="always" key={path} component={Link} to={folderHref(path)} size="sm">
            {name}
          </Anchor>
        );
      })}
    </Breadcrumbs>
  );
}

function NewFolder({ parent, opened, onClose }: { parent: string; opened: boolean; onClose: () => void }) {
  const client = useQueryClient();
  const [name, setName] = useState('');
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (opened) {
      setName('');
      setError(undefined);
    }
  }, [opened]);
  return (
    <Modal closeButtonProps={{ 'aria-label': 'Close' }} opened={opened} onClose={onClose} title="New folder">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          if (name.includes('/')) return setError('A folder name cannot contain “/”');
          try {
            unwrap(await api.POST('/api/v1/dam/folders', { body: { path: joinPath(parent, name.trim()) } }));
            showSaved(`Folder “${name.trim()}” created`);
            await client.invalidateQueries({ queryKey: ['assets', 'folders'] });
            onClose();
          } catch (err) {
            setError(err instanceof Error ? err.message : 'Not created');
          }
        }}
      >
        <Stack>
          <TextInput
            label="Folder name"
            description={parent ? `Inside “${parent}”` : 'At the top of the library'}
            value={name}
            onChange={(e) => setName(e.currentTarget.value)}
            error={error}
            required
            data-autofocus
          />
          <Group justify="flex-end">
            <Button variant="default" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" disabled={!name.trim()}>
              Create folder
            </Button>
          </Group>
        </Stack>
      </form>
    </Modal>
  );
}

async function deleteFolder(path: string, onDone: () => Promise<unknown>) {
  try {
    // Say exactly what goes: count the files under the folder first.
    const { total } = unwrap(
      await api.GET('/api/v1/dam/assets', { params: { query: { folder: path, recursive: true, limit: 1 } } }),
    );
    const ok = await confirmDestructive({
      title: `Delete the folder “${path}”?`,
      removes: `the folder “${path}”, its sub-folders and the ${total} ${total === 1 ? 'file' : 'files'} in them, with every version and thumbnail.`,
      confirmLabel: 'Delete folder',
    });
    if (!ok) return;
    unwrap(await api.DELETE('/api/v1/dam/folders', { params: { query: { path } } }));
    showSaved(`Folder “${path}” deleted`);
    await onDone();
  } catch (err) {
    showSaveError(err);
  }
}

function FolderList({ folder }: { folder: string }) {
  const can = useCan();
  const client = useQueryClient();
  const folders = useQuery({
    queryKey: ['assets', 'folders', folder],
    queryFn: async () =>
      unwrap(await api.GET('/api/v1/dam/folders', { params: { query: { parent: folder } } })).folders,
  });
  if (folders.isPending) return <LoadingState label="Loading folders" />;
  if (folders.error) return <ErrorState error={folders.error} onRetry={() => folders.refetch()} />;
  if (folders.data.length === 0) return null;
  return (
    <nav aria-label="Folders">
      <Group gap="xs" wrap="wrap">
        {folders.data.map((f) => (
          <Group key={f.path} gap={0} wrap="nowrap">
            <Button
              component={Link}
              to={folderHref(f.path)}
              variant="light"
              leftSection={<IconFolder size={16} aria-hidden />}
            >
              {f.name}
            </Button>
            {can('assets:manage') && (
              <Button
                variant="subtle"
                color="red"
                px={6}
                aria-label={`Delete folder ${f.name}`}
                onClick={() => deleteFolder(f.path, () => client.invalidateQueries({ queryKey: ['assets'] }))}
              >
                <IconTrash size={16} aria-hidden />
              </Button>
            )}
          </Group>
        ))}
      </Group>
    </nav>
  );
}

function AssetCard({ asset, onOpen }: { asset: Asset; onOpen: () => void }) {
  return (
    <Card withBorder padding="xs" radius="md" component="li" style={{ listStyle: 'none' }}>
      <UnstyledButton onClick={onOpen} aria-label={`Open ${asset.filename}`}>
        <Card.Section>
          {asset.thumbnailUrl ? (
            <Image src={asset.thumbnailUrl} alt={asset.filename} h={120} fit="cover" loading="lazy" />
          ) : (
            <Center h={120} bg="gray.1">
              <IconFile size={40} stroke={1.2} aria-hidden />
            </Center>
          )}
        </Card.Section>
        <Text size="sm" fw={500} mt="xs" truncate>
          {asset.filename}
        </Text>
      </UnstyledButton>
      <Group justify="space-between" gap={4} mt={4}>
        <Text size="xs" c="dimmed">
          {formatBytes(asset.size)}
        </Text>
        <Badge size="xs" variant="light" color={asset.visibility === 'public' ? 'green' : 'gray'}>
          {asset.visibility}
        </Badge>
      </Group>
    </Card>
  );
}

/** `/admin/assets`: folders, uploads and the files of one folder; `?asset=<id>` opens one. */
export default function AssetLibrary() {
  const can = useCan();
  const url = useUrlState(['folder', 'search', 'asset']);
  const { folder, search, asset } = url.values;
  const [newFolder, setNewFolder] = useState(false);
  const [searchText, setSearchText] = useState(search);
  useEffect(() => setSearchText(search), [search]);
  const assets = useQuery({
    queryKey: ['assets', 'list', folder, search, url.page],
    queryFn: async () =>
      unwrap(
        await api.GET('/api/v1/dam/assets', {
          params: {
            query: {
              folder,
              limit: PAGE_SIZE,
              offset: (url.page - 1) * PAGE_SIZE,
              ...(search ? { search, recursive: true } : {}),
            },
          },
        }),
      ),
    placeholderData: (previous) => previous,
  });
  const pages = Math.max(1, Math.ceil((assets.data?.total ?? 0) / PAGE_SIZE));
  return (
    <>
      <PageHeader
        title="Asset library"
        description="Images and files the sites and data use. Public files can be linked from anywhere; private ones need a signed-in user."
        actions={
          can('assets:upload') && (
            <>
              {/* The ai plugin's screen (a link, not an import): an image from a prompt, stored in this folder. */}
              {can('ai:use') && (
                <Button
                  component={Link}
                  to={folder ? `/admin/ai/image?folder=${encodeURIComponent(folder)}` : '/admin/ai/image'}
                  variant="default"
                >
                  Generate image
                </Button>
              )}
              <Button leftSection={<IconFolderPlus size={16} aria-hidden />} onClick={() => setNewFolder(true)}>
                New folder
              </Button>
            </>
          )
        }
      />
      <NewFolder parent={folder} opened={newFolder} onClose={() => setNewFolder(false)} />
      <Stack gap="md">
        <FolderTrail folder={folder} />
        <FolderList folder={folder} />
        {can('assets:upload') && <UploadZone folder={folder} />}
        <Paper withBorder p="md" radius="md">
          <search>
            <form
              aria-label="Search files"
              onSubmit={(e) => {
                e.preventDefault();
                url.set({ search: searchText.trim() });
              }}
            >
              <Group align="flex-end" mb="md">
                <TextInput
                  label="File name contains"
                  description={folder ? 'Searches this folder and its sub-folders' : 'Searches the whole library'}
                  value={searchText}
                  onChange={(e) => setSearchText(e.currentTarget.value)}
                />
                <Button type="submit" variant="light">
                  Search
                </Button>
              </Group>
            </form>
          </search>
          {assets.isPending ? (
            <LoadingState label="Loading files" />
          ) : assets.error ? (
            <ErrorState error={assets.error} onRetry={() => assets.refetch()} />
          ) : assets.data.assets.length === 0 ? (
            <EmptyState title={search ? `No file name contains “${search}”` : 'No files in this folder'}>
              {can('assets:upload') && !search ? 'Drop files above to add the first ones.' : undefined}
            </EmptyState>
          ) : (
            <Stack>
              <Text size="sm" c="dimmed" aria-live="polite">
                {assets.data.total} {assets.data.total === 1 ? 'file' : 'files'}
              </Text>
              <SimpleGrid
                component="ul"
                cols={{ base: 2, xs: 3, sm: 4, lg: 6 }}
                spacing="sm"
                p={0}
                m={0}
                aria-label="Files"
              >
                {assets.data.assets.map((a) => (
                  <AssetCard key={a.id} asset={a} onOpen={() => url.set({ asset: a.id, page: String(url.page) })} />
                ))}
              </SimpleGrid>
              {pages > 1 && (
                <Pagination
                  total={pages}
                  value={url.page}
                  onChange={(p) => url.set({ page: String(p) })}
                  getControlProps={(control) => ({ 'aria-label': `${control} page` })}
                />
              )}
            </Stack>
          )}
        </Paper>
      </Stack>
      <AssetDrawer id={asset} onClose={() => url.set({ asset: '', page: String(url.page) })} />
    </>
  );
}
