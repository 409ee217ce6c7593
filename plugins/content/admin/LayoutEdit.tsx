import { Anchor, Button, Group, Paper, Select, Stack, Switch, TagsInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ContentDraft } from './ContentDraft.tsx';
import { editorUrl, keys, type Layout, useWebsite, type Website } from './content-api.ts';
import { NameField, TreeDocumentForm } from './TreeDocumentForm.tsx';

const EVERY = '*';

const json = (v: unknown) => JSON.stringify(v, null, 2);

function LayoutForm({ layout, site, canEdit }: { layout: Layout; site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const path = { websiteId: site.id, id: layout.id };
  return (
    <TreeDocumentForm
      record={layout}
      what="layout"
      canEdit={canEdit}
      valuesOf={(l: Layout) => ({
        name: l.name,
        locale: l.locale ?? EVERY,
        pathPatterns: l.pathPatterns,
        isDefault: l.isDefault,
        regions: json(l.regions),
        slots: json(l.slots),
      })}
      trees={[
        {
          name: 'regions',
          label: 'Regions',
          description: 'header, aside, main, footer and 404: each a node tree or null',
        },
        {
          name: 'slots',
          label: 'Slots',
          description: 'Per slot its className and style, e.g. { "body": { "className": "container" } }',
        },
      ]}
      write={(v, trees, ifMatch) =>
        api.PATCH('/cms-one/websites/{websiteId}/templates/{id}', {
          params: { path, header: { 'if-match': ifMatch } },
          body: {
            name: v.name.trim(),
            pathPatterns: v.pathPatterns,
            locale: v.locale === EVERY ? null : v.locale,
            isDefault: v.isDefault,
            regions: trees.regions as Record<string, unknown>,
            slots: trees.slots as Record<string, { className?: string; style?: string }>,
          },
        })
      }
      read={() => api.GET('/cms-one/websites/{websiteId}/templates/{id}', { params: { path } })}
      store={(l) => client.setQueryData([...keys.layouts(site.id), layout.id], l)}
      onSaved={() => client.invalidateQueries({ queryKey: keys.layouts(site.id), exact: true })}
      fields={({ values, set, errors, readOnly }) => (
        <>
          <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
            <NameField values={values} set={set} errors={errors} readOnly={readOnly} />
            <Select
              label="Language"
              data={[{ value: EVERY, label: 'Every language' }, ...site.locales.map((l) => ({ value: l, label: l }))]}
              value={values.locale}
              onChange={(v) => set('locale', v ?? EVERY)}
              allowDeselect={false}
              readOnly={readOnly}
              error={errors.locale}
              miw={160}
            />
          </Group>
          <TagsInput
            label="Path patterns"
            description="Pages it applies to: /blog/* (everything below /blog), /about, or * (every page); the most specific wins"
            value={values.pathPatterns}
            onChange={(v) => set('pathPatterns', v)}
            readOnly={readOnly}
            error={errors.pathPatterns}
          />
          <Switch
            label="Default layout (used where no pattern matches)"
            checked={values.isDefault}
            disabled={readOnly}
            onChange={(e) => set('isDefault', e.currentTarget.checked)}
          />
        </>
      )}
    />
  );
}

/** `/admin/websites/:id/layouts/:layoutId`: one layout template of a website. */
export default function LayoutEdit() {
  const { id = '', layout: layoutId = '' } = useParams();
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const site = useWebsite(id);
  const layout = useQuery({
    queryKey: [...keys.layouts(id), layoutId],
    queryFn: async () =>
      unwrap(
        await api.GET('/cms-one/websites/{websiteId}/templates/{id}', {
          params: { path: { websiteId: id, id: layoutId } },
        }),
      ),
  });
  const canEdit = can('websites:edit');
  const remove = async (l: Layout, s: Website) => {
    const ok = await confirmDestructive({
      title: `Delete the layout ${l.name}?`,
      removes: `the layout ${l.name} of ${s.name} with its regions and slots; pages it applied to get the next matching layout, or none.`,
      confirmLabel: 'Delete the layout',
    });
    if (!ok) return;
    try {
      unwrap(
        await api.DELETE('/cms-one/websites/{websiteId}/templates/{id}', {
          params: { path: { websiteId: s.id, id: l.id } },
        }),
      );
      showSaved(`${l.name} deleted`);
      await client.invalidateQueries({ queryKey: keys.layouts(s.id) });
      await navigate(`/admin/websites/${s.id}/layouts`);
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <QueryState query={site}>
      {(s) => (
        <QueryState query={layout}>
          {(l) => (
            <>
              <PageHeader
                title={l.name}
                description={
                  <>
                    A layout of {s.name} ·{' '}
                    <Anchor underline="always" component={Link} to={`/admin/websites/${s.id}/layouts`}>
                      Layouts of {s.name}
                    </Anchor>
                  </>
                }
                actions={
                  canEdit && (
                    <Button component="a" href={editorUrl.layout(s.id, l.id)} variant="light">
                      Open in editor
                    </Button>
                  )
                }
              />
              <ContentDraft
                owner={{ ownerType: 'layout', id: l.id, websiteId: s.id }}
                draft={l.draft}
                canEdit={canEdit}
                onDone={() => client.invalidateQueries({ queryKey: [...keys.layouts(id), layoutId] })}
              />
              <Paper withBorder p="md" mt={l.draft ? 'md' : undefined}>
                {/* A publish or a discard changes what the form starts from: it starts again. */}
                <LayoutForm key={`${l.id}:${l.draft ? 'draft' : 'live'}`} layout={l} site={s} canEdit={canEdit} />
              </Paper>
              {canEdit && (
                <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
                  <Stack gap="sm" align="flex-start">
                    <Title order={2} size="h4">
                      Delete the layout
                    </Title>
                    <Button color="red" onClick={() => remove(l, s)}>
                      Delete the layout
                    </Button>
                  </Stack>
                </Paper>
              )}
            </>
          )}
        </QueryState>
      )}
    </QueryState>
  );
}
