import { Anchor, Badge, Group, Loader, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { type ApiAnswer, ApiError, useMe } from '../../../admin-ui/app/src/sdk/index.ts';
import { type DocumentKind, json, listPages, listWebsites, type PageSummary, type Website } from './documents.ts';
import { Problem } from './Problem.tsx';
import { documentUrl, type RecentItem, recentItems } from './recent.ts';

type Snippet = ApiAnswer<'/cms-one/snippets', 'get'>[number];
type Template = ApiAnswer<'/cms-one/templates', 'get'>[number];
type Layout = ApiAnswer<'/cms-one/websites/{websiteId}/templates', 'get'>[number];

/** One openable document of the tree. */
interface Leaf {
  kind: DocumentKind;
  id: string;
  websiteId?: string;
  name: string;
  detail?: string;
}
interface Branch {
  label: string;
  leaves: Leaf[];
}
interface SiteNode {
  key: string;
  label: string;
  branches: Branch[];
}

/** Everything the entry shows, read at once: the websites with their pages and layouts, snippets, templates. */
async function loadTree(): Promise<SiteNode[]> {
  const [websites, snippets, templates] = await Promise.all([
    listWebsites(),
    json<Snippet[]>('GET', '/cms-one/snippets?limit=1000').then((r) => r.data),
    json<Template[]>('GET', '/cms-one/templates?limit=1000').then((r) => r.data),
  ]);
  const sites = await Promise.all(
    websites.map(async (w: Website) => {
      const [pages, layouts] = await Promise.all([
        listPages(w.id),
        json<Layout[]>('GET', `/cms-one/websites/${encodeURIComponent(w.id)}/templates`).then((r) => r.data),
      ]);
      return { w, pages, layouts };
    }),
  );
  const snippetLeaf = (s: Snippet): Leaf => ({ kind: 'snippets', id: s.id, name: s.name });
  const pageLeaf = (p: PageSummary): Leaf => ({
    kind: 'pages',
    id: p.id,
    name: p.title,
    detail: `${p.path}${p.locale ? ` · ${p.locale}` : ''}`,
  });
  const tree: SiteNode[] = sites.map(({ w, pages, layouts }) => ({
    key: w.id,
    label: `${w.name} (${w.rootPath})`,
    branches: [
      { label: 'Pages', leaves: [...pages].sort((a, b) => a.path.localeCompare(b.path)).map(pageLeaf) },
      { label: 'Snippets', leaves: snippets.filter((s) => s.websiteId === w.id).map(snippetLeaf) },
      {
        label: 'Layouts',
        leaves: layouts.map((l) => ({ kind: 'layouts' as const, id: l.id, websiteId: w.id, name: l.name })),
      },
    ],
  }));
  tree.push({
    key: 'shared',
    label: 'Shared by all websites',
    branches: [
      { label: 'Snippets', leaves: snippets.filter((s) => !s.websiteId).map(snippetLeaf) },
      {
        label: 'Templates',
        leaves: templates.map((t) => ({ kind: 'templates', id: t.id, name: t.name, detail: t.path })),
      },
    ],
  });
  return tree;
}

/** The tree narrowed to documents whose name or path holds the search (case-insensitive). */
function narrowed(tree: SiteNode[], search: string): SiteNode[] {
  const q = search.trim().toLowerCase();
  if (!q) return tree;
  const hit = (l: Leaf) => l.name.toLowerCase().includes(q) || (l.detail ?? '').toLowerCase().includes(q);
  return tree
    .map((site) => ({
      ...site,
      branches: site.branches.map((b) => ({ ...b, leaves: b.leaves.filter(hit) })).filter((b) => b.leaves.length),
    }))
    .filter((site) => site.branches.length);
}

const KIND_NAME: Record<DocumentKind, string> = {
  pages: 'page',
  snippets: 'snippet',
  templates: 'template',
  layouts: 'layout',
};

function Recent({ items }: { items: RecentItem[] }) {
  return (
    <section aria-labelledby="recent-heading">
      <Title order={2} size="h4" id="recent-heading" mb="xs">
        Recent
      </Title>
      {items.length === 0 ? (
        <Text size="sm">Nothing opened in this browser yet: pick a page, snippet, template or layout below.</Text>
      ) : (
        <ul className="cms-home-list" aria-label="Recently opened">
          {items.map((i) => (
            <li key={`${i.kind}:${i.id}`}>
              <Anchor href={documentUrl(i)}>{i.title}</Anchor>{' '}
              <Badge size="xs" variant="light" color="gray">
                {KIND_NAME[i.kind]}
              </Badge>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/**
 * `/cms-one/editor/` (and `/cms-one/`, redirected): the editor's entry. The websites as a tree of
 * their pages, snippets and layouts, with the shared snippets and templates; a search narrows it, and
 * this browser's recent documents come first. Every document opens straight on the canvas.
 */
export function EditorHome() {
  const me = useMe();
  const tree = useQuery({ queryKey: ['page-editor', 'home-tree'], queryFn: loadTree });
  const [search, setSearch] = useState('');
  const recent = useMemo(recentItems, []);
  const shown = useMemo(() => narrowed(tree.data ?? [], search), [tree.data, search]);
  const signedOut = me.data === null || (tree.error instanceof ApiError && tree.error.status === 401);
  useEffect(() => {
    if (signedOut) window.location.replace(`/sign-in?next=${encodeURIComponent(window.location.pathname)}`);
  }, [signedOut]);
  if (tree.isError && !signedOut)
    return <Problem title="The editor could not list the content">{(tree.error as Error).message}</Problem>;
  return (
    <Stack component="main" p="md" maw={960} mx="auto">
      <Group justify="space-between" align="end">
        <Title order={1}>Page editor</Title>
        <Anchor href="/admin">Back to the dashboard</Anchor>
      </Group>
      <Recent items={recent} />
      <section aria-labelledby="content-heading">
        <Title order={2} size="h4" id="content-heading" mb="xs">
          Websites and their content
        </Title>
        <TextInput
          label="Search"
          description="By name, title or path"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
          maw={420}
          mb="sm"
        />
        {tree.isLoading ? (
          <Loader aria-label="Listing the content" />
        ) : shown.length === 0 ? (
          <Text>{search.trim() ? `Nothing matches "${search.trim()}".` : 'There is no content yet.'}</Text>
        ) : (
          <ul className="cms-home-tree" aria-label="Content by website">
            {shown.map((site) => (
              <li key={site.key}>
                <details open>
                  <summary>{site.label}</summary>
                  <ul>
                    {site.branches.map((b) => (
                      <li key={b.label}>
                        <details open={b.leaves.length > 0 && (search.trim() !== '' || b.leaves.length <= 20)}>
                          <summary>
                            {b.label} ({b.leaves.length})
                          </summary>
                          {b.leaves.length === 0 ? (
                            <Text size="sm" ml="md">
                              None
                            </Text>
                          ) : (
                            <ul>
                              {b.leaves.map((l) => (
                                <li key={l.id}>
                                  <Anchor href={documentUrl(l)}>{l.name}</Anchor>
                                  {l.detail && (
                                    <Text span size="sm" ml="xs">
                                      {l.detail}
                                    </Text>
                                  )}
                                </li>
                              ))}
                            </ul>
                          )}
                        </details>
                      </li>
                    ))}
                  </ul>
                </details>
              </li>
            ))}
          </ul>
        )}
      </section>
    </Stack>
  );
}
