import {
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Select,
  Stack,
  Switch,
  Table,
  Tabs,
  Text,
  Textarea,
  TextInput,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { modals } from '@mantine/modals';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams, useSearchParams } from 'react-router';
import {
  api,
  confirmDestructive,
  EmptyState,
  PageHeader,
  PathInput,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import {
  editorUrl,
  keys,
  type Page,
  publicPathOf,
  shortDate,
  useWebsite,
  type Version,
  type Website,
} from './content-api.ts';
import { ContentDraft } from './ContentDraft.tsx';
import { ConflictNotice, useStoredVersion } from './edit-conflict.tsx';

const KINDS = [
  { value: 'page', label: 'Page' },
  { value: 'app', label: 'App screen (mobile generator)' },
];

/** A stored text field, or empty when it is absent (SEO fields are optional). */
const text = (v: unknown) => (typeof v === 'string' ? v : '');

function usePageQuery(id: string) {
  return useQuery({
    queryKey: keys.page(id),
    queryFn: async () => unwrap(await api.GET('/cms-one/pages/{id}', { params: { path: { id } } })),
  });
}

/** The values of the details form for a stored page. */
const detailsOf = (page: Page) => ({
  title: page.title,
  path: page.path,
  locale: page.locale,
  kind: page.kind ?? 'page',
  dataClass: page.dataClass ?? '',
  seoTitle: text(page.seo.title),
  seoDescription: text(page.seo.description),
  canonical: text(page.seo.canonical),
  inSitemap: page.inSitemap,
  indexable: page.indexable,
});

/**
 * Title, path, language, SEO and indexing: a PATCH of what changed, with `If-Match` of the version
 * the form was loaded from (a page changed in the editor since is not overwritten; the form says so).
 */
function DetailsForm({ page, site, canEdit }: { page: Page; site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: detailsOf(page),
    validate: {
      title: (v) => (v.trim() ? null : 'Give the page a title'),
      path: (v) => (v.startsWith('/') ? null : 'A path starts with /'),
    },
  });
  const stored = useStoredVersion({
    record: page,
    valuesOf: detailsOf,
    values: form.values,
    setValues: (v) => {
      form.setValues(v);
      form.resetDirty(v);
    },
    read: () => api.GET('/cms-one/pages/{id}', { params: { path: { id: page.id } } }),
    store: (p) => client.setQueryData(keys.page(page.id), (old: Page | undefined) => ({ ...old, ...p })),
  });
  const loaded = stored.loaded;
  const initial = detailsOf(loaded);
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        const body: Record<string, unknown> = {};
        if (v.title !== initial.title) body.title = v.title.trim();
        if (v.path !== initial.path) body.path = v.path.trim();
        if (v.locale !== initial.locale) body.locale = v.locale;
        if (v.kind !== initial.kind) body.kind = v.kind;
        if (v.dataClass !== initial.dataClass) body.dataClass = v.dataClass.trim() || null;
        if (v.inSitemap !== initial.inSitemap) body.inSitemap = v.inSitemap;
        if (v.indexable !== initial.indexable) body.indexable = v.indexable;
        if (
          v.seoTitle !== initial.seoTitle ||
          v.seoDescription !== initial.seoDescription ||
          v.canonical !== initial.canonical
        ) {
          const { title: _t, description: _d, canonical: _c, ...rest } = loaded.seo;
          body.seo = {
            ...rest,
            ...(v.seoTitle ? { title: v.seoTitle } : {}),
            ...(v.seoDescription ? { description: v.seoDescription } : {}),
            ...(v.canonical ? { canonical: v.canonical } : {}),
          };
        }
        if (Object.keys(body).length === 0) return showSaved('Nothing changed');
        try {
          const saved = await stored.save((ifMatch) =>
            api.PATCH('/cms-one/pages/{id}', {
              params: { path: { id: page.id }, header: { 'if-match': ifMatch } },
              body: body as never,
            }),
          );
          if (!saved) return;
          showSaved(`${saved.title} saved`);
          await client.invalidateQueries({ queryKey: keys.pages(page.websiteId) });
        } catch (err) {
          // The API names seo.title etc.; the form calls them seoTitle.
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput label="Title" required readOnly={!canEdit} miw={220} {...form.getInputProps('title')} />
          <PathInput
            label="Path"
            description={`Below ${site.rootPath}; :name segments make a dynamic page`}
            required
            readOnly={!canEdit}
            miw={220}
            {...form.getInputProps('path')}
          />
        </Group>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <Select
            label="Language"
            data={site.locales.includes(page.locale) ? site.locales : [...site.locales, page.locale]}
            allowDeselect={false}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('locale')}
          />
          <Select
            label="Kind"
            data={KINDS}
            allowDeselect={false}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('kind')}
          />
          <TextInput
            label="Data class"
            description="For a dynamic page: the class whose objects it shows"
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('dataClass')}
          />
        </Group>
        <Title order={2} size="h4">
          Search engines
        </Title>
        <TextInput label="SEO title" readOnly={!canEdit} {...form.getInputProps('seoTitle')} />
        <Textarea
          label="SEO description"
          autosize
          minRows={2}
          readOnly={!canEdit}
          {...form.getInputProps('seoDescription')}
        />
        <TextInput
          label="Canonical address"
          description="https://… or a path; empty uses the page's own address"
          readOnly={!canEdit}
          {...form.getInputProps('canonical')}
        />
        <Group>
          <Switch
            label="Listed in the sitemap"
            disabled={!canEdit}
            {...form.getInputProps('inSitemap', { type: 'checkbox' })}
          />
          <Switch
            label="Indexable by search"
            disabled={!canEdit}
            {...form.getInputProps('indexable', { type: 'checkbox' })}
          />
        </Group>
        <ConflictNotice what="page" state={stored} />
        {canEdit && (
          <Group>
            <Button type="submit" loading={stored.busy}>
              Save the page
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** The page's history (the 10 most recent prior states), each restorable. */
function Versions({ page, canEdit }: { page: Page; canEdit: boolean }) {
  const client = useQueryClient();
  const versions = useQuery({
    queryKey: [...keys.page(page.id), 'versions'],
    queryFn: async () => unwrap(await api.GET('/cms-one/pages/{id}/versions', { params: { path: { id: page.id } } })),
  });
  const restore = (v: Version) =>
    modals.openConfirmModal({
      title: 'Restore this version?',
      children: (
        <Text size="sm">
          The page's content{v.title ? ` and title (“${v.title}”)` : ''} become those of {shortDate(v.createdAt)}. The
          current content is kept as a version in the history.
        </Text>
      ),
      labels: { confirm: 'Restore', cancel: 'Cancel' },
      onConfirm: async () => {
        try {
          const saved = unwrap(
            await api.POST('/cms-one/pages/{id}/versions/{versionId}/restore', {
              params: { path: { id: page.id, versionId: v.id } },
            }),
          );
          showSaved(`Version of ${shortDate(v.createdAt)} restored`);
          client.setQueryData(keys.page(page.id), saved);
          await client.invalidateQueries({ queryKey: keys.page(page.id) });
          await client.invalidateQueries({ queryKey: keys.pages(page.websiteId) });
        } catch (err) {
          showSaveError(err);
        }
      },
    });
  return (
    <QueryState query={versions}>
      {(list) =>
        list.length === 0 ? (
          <EmptyState title="No earlier versions">
            Each save that changes the content keeps the previous one here.
          </EmptyState>
        ) : (
          <Table.ScrollContainer minWidth={420}>
            <Table striped aria-label="Versions">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Saved</Table.Th>
                  <Table.Th>Title</Table.Th>
                  <Table.Th>
                    <VisuallyHidden>Actions</VisuallyHidden>
                  </Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((v) => (
                  <Table.Tr key={v.id}>
                    <Table.Td>{shortDate(v.createdAt)}</Table.Td>
                    <Table.Td>{v.title ?? '—'}</Table.Td>
                    <Table.Td>
                      {canEdit && (
                        <Button size="compact-sm" variant="light" onClick={() => restore(v)}>
                          Restore
                        </Button>
                      )}
                    </Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Table.ScrollContainer>
        )
      }
    </QueryState>
  );
}

/** The page in every language of its translation group, and a start for a missing language. */
function Languages({ page, site, canEdit }: { page: Page; site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const translations = useQuery({
    queryKey: [...keys.page(page.id), 'translations'],
    queryFn: async () =>
      unwrap(await api.GET('/cms-one/pages/{id}/translations', { params: { path: { id: page.id } } })),
  });
  const add = async (locale: string) => {
    try {
      const created = unwrap(
        await api.POST('/cms-one/pages', {
          body: {
            websiteId: site.id,
            locale,
            path: page.path,
            title: page.title,
            translationGroupId: page.translationGroupId,
            ...(page.content !== undefined ? { content: page.content } : {}),
          },
        }),
      );
      showSaved(`The ${locale} version of ${page.title} created as a draft with the same content`);
      await client.invalidateQueries({ queryKey: keys.pages(site.id) });
      await client.invalidateQueries({ queryKey: [...keys.page(page.id), 'translations'] });
      await navigate(`/admin/pages/${created.id}`);
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={translations}>
      {(list) => {
        const missing = site.locales.filter((l) => !list.some((t) => t.locale === l));
        return (
          <Stack align="flex-start">
            <Table striped aria-label="Languages of the page">
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Language</Table.Th>
                  <Table.Th>Title</Table.Th>
                  <Table.Th>Status</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {list.map((t) => (
                  <Table.Tr key={t.id}>
                    <Table.Td>{t.locale}</Table.Td>
                    <Table.Td>
                      {t.id === page.id ? (
                        `${t.title} (this page)`
                      ) : (
                        <Anchor component={Link} to={`/admin/pages/${t.id}`}>
                          {t.title}
                        </Anchor>
                      )}
                    </Table.Td>
                    <Table.Td>{t.published ? 'Published' : 'Draft'}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
            {canEdit &&
              missing.map((l) => (
                <Button key={l} variant="light" onClick={() => add(l)}>
                  Add the {l} version
                </Button>
              ))}
          </Stack>
        );
      }}
    </QueryState>
  );
}

function PublishButton({ page }: { page: Page }) {
  const client = useQueryClient();
  const toggle = async () => {
    try {
      const saved = unwrap(
        await api.PATCH('/cms-one/pages/{id}', {
          params: { path: { id: page.id } },
          body: { published: !page.published },
        }),
      );
      client.setQueryData(keys.page(page.id), { ...page, ...saved });
      showSaved(saved.published ? `${saved.title} published` : `${saved.title} unpublished`);
      await client.invalidateQueries({ queryKey: keys.pages(page.websiteId) });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Button variant={page.published ? 'default' : 'filled'} onClick={toggle}>
      {page.published ? 'Unpublish' : 'Publish'}
    </Button>
  );
}

function DangerZone({ page, site }: { page: Page; site: Website }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete the page ${page.title}?`,
      removes: `the page ${page.title} (${page.path}, ${page.locale}) of ${site.name} with its content and version history${
        page.published ? `, and its published address ${publicPathOf(site, page)} stops answering` : ''
      }. Other languages of the page and menu entries stay (those pointing to it lose their link).`,
      confirmLabel: 'Delete the page',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/pages/{id}', { params: { path: { id: page.id } } }));
      showSaved(`${page.title} deleted`);
      client.removeQueries({ queryKey: keys.page(page.id) });
      await client.invalidateQueries({ queryKey: keys.pages(site.id) });
      await navigate(`/admin/websites/${site.id}/pages`);
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
      <Title order={2} size="h4" mb="xs">
        Delete the page
      </Title>
      <Button color="red" onClick={remove}>
        Delete the page
      </Button>
    </Paper>
  );
}

function PageScreen({ page }: { page: Page }) {
  const can = useCan();
  const client = useQueryClient();
  const site = useWebsite(page.websiteId);
  const [params, setParams] = useSearchParams();
  const tab = params.get('tab') ?? 'details';
  const canEdit = can('pages:edit');
  return (
    <QueryState query={site}>
      {(s) => (
        <>
          <PageHeader
            title={page.title}
            description={
              <>
                <Badge color={page.published ? 'green' : 'gray'} variant="light" mr="xs">
                  {page.published ? 'Published' : 'Draft'}
                </Badge>
                {s.name} · <code>{page.path}</code> · {page.locale} ·{' '}
                <Anchor underline="always" component={Link} to={`/admin/websites/${s.id}/pages`}>
                  Pages of {s.name}
                </Anchor>
                {page.published && (
                  <>
                    {' · '}
                    <Anchor underline="always" href={publicPathOf(s, page)} target="_blank" rel="noreferrer">
                      View the published page
                    </Anchor>
                  </>
                )}
              </>
            }
            actions={
              <>
                {canEdit && (
                  <Button component="a" href={editorUrl.page(page.id)} variant="light">
                    Open in editor
                  </Button>
                )}
                {canEdit && can('objects:publish') && <PublishButton page={page} />}
              </>
            }
          />
          <Tabs value={tab} onChange={(t) => setParams(t && t !== 'details' ? { tab: t } : {})} keepMounted={false}>
            <Tabs.List mb="md">
              <Tabs.Tab value="details">Details</Tabs.Tab>
              <Tabs.Tab value="versions">Versions</Tabs.Tab>
              <Tabs.Tab value="languages">Languages</Tabs.Tab>
            </Tabs.List>
            <Tabs.Panel value="details">
              <ContentDraft
                owner={{ ownerType: 'page', id: page.id }}
                draft={page.draft}
                canEdit={canEdit}
                onDone={() => client.invalidateQueries({ queryKey: keys.page(page.id) })}
              />
              {/* A publish or a discard changes what the form starts from: it starts again. */}
              <DetailsForm key={`${page.id}:${page.draft ? 'draft' : 'live'}`} page={page} site={s} canEdit={canEdit} />
              {can('pages:delete') && <DangerZone page={page} site={s} />}
            </Tabs.Panel>
            <Tabs.Panel value="versions">
              <Versions page={page} canEdit={canEdit} />
            </Tabs.Panel>
            <Tabs.Panel value="languages">
              <Languages page={page} site={s} canEdit={canEdit} />
            </Tabs.Panel>
          </Tabs>
        </>
      )}
    </QueryState>
  );
}

/** `/admin/pages/:id`: one page's details, publication, versions and deletion. */
export default function PageEdit() {
  const { id = '' } = useParams();
  const page = usePageQuery(id);
  return <QueryState query={page}>{(p) => <PageScreen page={p} />}</QueryState>;
}
