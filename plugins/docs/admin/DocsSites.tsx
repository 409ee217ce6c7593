import {
  Alert,
  Anchor,
  Badge,
  Code,
  Group,
  Paper,
  Select,
  Stack,
  Table,
  Tabs,
  Text,
  Textarea,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconExternalLink } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import {
  type ApiAnswer,
  api,
  EmptyState,
  PageHeader,
  QueryState,
  unwrap,
  useCan,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';

type Tree = ApiAnswer<'/docs-sites/{websiteId}/tree', 'get'>;
type Warning = Tree['warnings'][number];
type NavCheck = ApiAnswer<'/docs-sites/{websiteId}/nav/check', 'post'>;
type NavItem = NavCheck['nav'][number];

/** The preview's URL: the document path after `preview/`, each segment encoded (the client leaves `{*}` alone). */
const previewPath = (template: string, params: Record<string, unknown> | undefined) =>
  template.replace('{websiteId}', encodeURIComponent(String(params?.websiteId))).replace(
    '{*}',
    String(params?.['*'] ?? '')
      .split('/')
      .map(encodeURIComponent)
      .join('/'),
  );

const pathLabel = (path: string) => (path ? `/${path}` : '/ (home)');

function Warnings({ warnings, label }: { warnings: readonly Warning[]; label: string }) {
  if (!warnings.length)
    return (
      <Text size="sm" c="dimmed">
        No warnings.
      </Text>
    );
  return (
    <Table striped aria-label={label}>
      <Table.Thead>
        <Table.Tr>
          <Table.Th>Warning</Table.Th>
          <Table.Th>File</Table.Th>
          <Table.Th>Line</Table.Th>
          <Table.Th>Message</Table.Th>
        </Table.Tr>
      </Table.Thead>
      <Table.Tbody>
        {warnings.map((w, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: warnings have no id, and the list is only redrawn whole
          <Table.Tr key={i}>
            <Table.Td>
              <Code>{w.code}</Code>
            </Table.Td>
            <Table.Td>{w.path || '—'}</Table.Td>
            <Table.Td>{w.line ?? '—'}</Table.Td>
            <Table.Td>{w.message}</Table.Td>
          </Table.Tr>
        ))}
      </Table.Tbody>
    </Table>
  );
}

function Documents({ websiteId, onPreview }: { websiteId: string; onPreview: (path: string) => void }) {
  const tree = useQuery({
    queryKey: ['docs', 'tree', websiteId],
    queryFn: async () => unwrap(await api.GET('/docs-sites/{websiteId}/tree', { params: { path: { websiteId } } })),
  });
  return (
    <QueryState query={tree}>
      {(t) => (
        <Stack>
          <Text size="sm">
            {t.documents.length} documents; start page:{' '}
            {t.index.kind === 'file' ? `the file ${t.index.path}` : 'made from the folder tree'}.
          </Text>
          <Table striped aria-label="Documents">
            <Table.Thead>
              <Table.Tr>
                <Table.Th>Path</Table.Th>
                <Table.Th>Title</Table.Th>
                <Table.Th>Visibility</Table.Th>
                <Table.Th>Updated</Table.Th>
              </Table.Tr>
            </Table.Thead>
            <Table.Tbody>
              {t.documents.map((d) => (
                <Table.Tr key={d.path}>
                  <Table.Td>
                    <Anchor component="button" type="button" onClick={() => onPreview(d.path)}>
                      {pathLabel(d.path)}
                    </Anchor>
                  </Table.Td>
                  <Table.Td>{d.title}</Table.Td>
                  <Table.Td>
                    <Badge variant="light" color={d.visibility === 'private' ? 'orange' : 'green'}>
                      {d.visibility}
                    </Badge>
                  </Table.Td>
                  <Table.Td>{d.updatedAt.slice(0, 10)}</Table.Td>
                </Table.Tr>
              ))}
            </Table.Tbody>
          </Table>
          <Title order={2} size="h4">
            Warnings ({t.warnings.length})
          </Title>
          <Warnings warnings={t.warnings} label="Warnings of the site" />
          {t.otherFiles.length > 0 && (
            <Text size="sm" c="dimmed">
              Other files of the folder: {t.otherFiles.map((f) => f.path).join(', ')}
            </Text>
          )}
        </Stack>
      )}
    </QueryState>
  );
}

/** The rendered document in a frame of its own (the dashboard's policy: its HTML runs no script). */
function PreviewFrame({ html, title }: { html: string; title: string }) {
  const doc = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title.replace(/</g, '&lt;')}</title><style>body{font:15px/1.6 system-ui,sans-serif;margin:16px;color:#1a1a1a}pre{background:#f6f8fa;padding:8px;overflow:auto}a{color:#0b57d0}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px}</style></head><body><main>${html}</main></body></html>`;
  return (
    <iframe
      title={`Preview of ${title}`}
      sandbox="allow-scripts"
      srcDoc={doc}
      style={{
        width: '100%',
        height: 420,
        border: '1px solid var(--mantine-color-default-border)',
        background: 'white',
      }}
    />
  );
}

function Preview({
  websiteId,
  path,
  paths,
  onPath,
}: {
  websiteId: string;
  path: string;
  paths: readonly string[];
  onPath: (path: string) => void;
}) {
  const preview = useQuery({
    queryKey: ['docs', 'preview', websiteId, path],
    queryFn: async () =>
      unwrap(
        await api.GET('/docs-sites/{websiteId}/preview/{*}', {
          params: { path: { websiteId, '*': path } },
          pathSerializer: previewPath,
        }),
      ),
  });
  return (
    <Stack>
      <Select
        label="Document"
        maw={420}
        data={paths.map((p) => ({ value: p || '/', label: pathLabel(p) }))}
        value={path || '/'}
        onChange={(v) => onPath(v === '/' || !v ? '' : v)}
        allowDeselect={false}
      />
      <QueryState query={preview}>
        {({ page }) => (
          <Stack>
            <Group>
              <Title order={2} size="h4">
                {page.title}
              </Title>
              <Badge variant="light" color={page.visibility === 'private' ? 'orange' : 'green'}>
                {page.visibility}
              </Badge>
            </Group>
            {page.visibility === 'private' && (
              <Text size="sm">
                Private: staff see it here; the public site answers 404 and its index leaves it out.
              </Text>
            )}
            <PreviewFrame html={page.html} title={page.title} />
            <Warnings warnings={page.warnings ?? []} label="Warnings of the document" />
          </Stack>
        )}
      </QueryState>
    </Stack>
  );
}

function navLines(items: readonly NavItem[], depth = 0): string[] {
  return items.flatMap((i) => [
    `${'  '.repeat(depth)}${i.title}${i.path !== undefined ? ` → ${pathLabel(i.path)}` : ''}`,
    ...navLines((i.children ?? []) as NavItem[], depth + 1),
  ]);
}

function NavFile({ websiteId }: { websiteId: string }) {
  const [text, setText] = useState('- /\n');
  const [checked, setChecked] = useState<NavCheck | undefined>();
  const [failed, setFailed] = useState<string | undefined>();
  // Checked as you type: the last text a moment after the last key.
  useEffect(() => {
    let live = true;
    const timer = setTimeout(async () => {
      try {
        const answer = unwrap(
          await api.POST('/docs-sites/{websiteId}/nav/check', { params: { path: { websiteId } }, body: { text } }),
        );
        if (live) {
          setChecked(answer);
          setFailed(undefined);
        }
      } catch (err) {
        if (live) setFailed((err as Error).message);
      }
    }, 300);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [text, websiteId]);
  return (
    <Stack>
      <Textarea
        label="Nav file (YAML)"
        description="A list of document paths, or { title, path?, children } groups. Paste the site's nav file to check it."
        autosize
        minRows={6}
        spellCheck={false}
        styles={{ input: { fontFamily: 'monospace' } }}
        value={text}
        onChange={(e) => setText(e.currentTarget.value)}
      />
      <div aria-live="polite">
        {failed && (
          <Alert color="red" title="Not checked">
            {failed}
          </Alert>
        )}
        {checked && !failed && (
          <Stack gap="xs">
            {checked.ok ? (
              <Text fw={600}>The nav file is valid.</Text>
            ) : (
              <Alert color="red" title="The nav file has errors">
                <ul aria-label="Nav file errors">
                  {checked.errors.map((e) => (
                    <li key={`${e.line}:${e.message}`}>
                      Line {e.line}: {e.message}
                    </li>
                  ))}
                </ul>
              </Alert>
            )}
            <Warnings warnings={checked.warnings} label="Warnings of the nav file" />
            {checked.ok && (
              <Paper withBorder p="sm" component="section" aria-label="Navigation">
                <Text size="sm" fw={600}>
                  Navigation
                </Text>
                <pre style={{ margin: 0 }}>{navLines(checked.nav).join('\n')}</pre>
              </Paper>
            )}
          </Stack>
        )}
      </div>
    </Stack>
  );
}

/**
 * `/admin/docs?site=<id>&tab=documents|preview|nav&doc=<path>`: a documentation website (a website of
 * kind `documentation`) as staff see it.
 */
export default function DocsSites() {
  const can = useCan();
  const url = useUrlState(['site', 'tab', 'doc'] as const);
  const websites = useQuery({
    queryKey: ['docs', 'websites'],
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
  });
  const tree = useQuery({
    queryKey: ['docs', 'tree', url.values.site],
    enabled: Boolean(url.values.site),
    queryFn: async () =>
      unwrap(await api.GET('/docs-sites/{websiteId}/tree', { params: { path: { websiteId: url.values.site } } })),
  });
  const mayCheck = can('docs:edit');
  const tab = url.values.tab === 'preview' || (url.values.tab === 'nav' && mayCheck) ? url.values.tab : 'documents';
  return (
    <Stack maw={1100}>
      <PageHeader
        title="Documentation sites"
        description="A folder of Markdown in the library published as a documentation website: its documents, warnings, previews and navigation."
      />
      <QueryState query={websites}>
        {(list) => {
          const sites = list.filter((w) => w.kind === 'documentation');
          if (!sites.length)
            return (
              <EmptyState title="No documentation site yet">
                Create a website of kind documentation whose settings name a library folder
                (settings.docs.sourceFolder).
              </EmptyState>
            );
          const site = sites.find((w) => w.id === url.values.site);
          return (
            <Stack>
              <Group align="flex-end">
                <Select
                  label="Documentation site"
                  placeholder="Choose a site"
                  maw={420}
                  data={sites.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
                  value={site ? site.id : null}
                  onChange={(id) => url.set({ site: id ?? '', tab: '', doc: '' })}
                  allowDeselect={false}
                />
                {site && (
                  <Anchor href={`${site.rootPath}/`} target="_blank" rel="noopener">
                    <Group gap={4}>
                      Open the public site <IconExternalLink size={14} aria-hidden />
                    </Group>
                  </Anchor>
                )}
              </Group>
              {site && (
                <Tabs
                  value={tab}
                  onChange={(v) => url.set({ tab: v === 'documents' ? '' : (v ?? '') })}
                  keepMounted={false}
                >
                  <Tabs.List>
                    <Tabs.Tab value="documents">Documents</Tabs.Tab>
                    <Tabs.Tab value="preview">Preview</Tabs.Tab>
                    {mayCheck && <Tabs.Tab value="nav">Nav file</Tabs.Tab>}
                  </Tabs.List>
                  <Tabs.Panel value="documents" pt="md">
                    <Documents websiteId={site.id} onPreview={(doc) => url.set({ tab: 'preview', doc: doc || '/' })} />
                  </Tabs.Panel>
                  <Tabs.Panel value="preview" pt="md">
                    <Preview
                      websiteId={site.id}
                      path={url.values.doc === '/' ? '' : url.values.doc}
                      paths={tree.data?.documents.map((d) => d.path) ?? ['']}
                      onPath={(doc) => url.set({ doc: doc || '/' })}
                    />
                  </Tabs.Panel>
                  {mayCheck && (
                    <Tabs.Panel value="nav" pt="md">
                      <NavFile websiteId={site.id} />
                    </Tabs.Panel>
                  )}
                </Tabs>
              )}
            </Stack>
          );
        }}
      </QueryState>
    </Stack>
  );
}
