import { Anchor, Button, Group, Paper, Select, Stack, Switch, TagsInput, TextInput, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  ApiError,
  confirmDestructive,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, keys, type Layout, useWebsite, type Website } from './content-api.ts';
import { parseTree, TreeInput } from './tree-input.tsx';

const EVERY = '*';

function LayoutForm({ layout, site, canEdit }: { layout: Layout; site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState(layout.name);
  const [patterns, setPatterns] = useState(layout.pathPatterns);
  const [locale, setLocale] = useState(layout.locale ?? EVERY);
  const [isDefault, setDefault] = useState(layout.isDefault);
  const [regions, setRegions] = useState(JSON.stringify(layout.regions, null, 2));
  const [slots, setSlots] = useState(JSON.stringify(layout.slots, null, 2));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const save = async () => {
    const r = parseTree(regions);
    const s = parseTree(slots);
    if (r.error || s.error)
      return setErrors({ ...(r.error && { regions: r.error }), ...(s.error && { slots: s.error }) });
    setErrors({});
    setBusy(true);
    try {
      const saved = unwrap(
        await api.PATCH('/cms-one/websites/{websiteId}/templates/{id}', {
          params: { path: { websiteId: site.id, id: layout.id } },
          body: {
            name: name.trim(),
            pathPatterns: patterns,
            locale: locale === EVERY ? null : locale,
            isDefault,
            regions: r.value as Record<string, unknown>,
            slots: s.value as Record<string, { className?: string; style?: string }>,
          },
        }),
      );
      client.setQueryData([...keys.layouts(site.id), layout.id], saved);
      await client.invalidateQueries({ queryKey: keys.layouts(site.id) });
      showSaved(`${saved.name} saved`);
    } catch (err) {
      if (err instanceof ApiError && err.field) setErrors({ [err.field.split('.')[0]]: err.message });
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput
            label="Name"
            required
            readOnly={!canEdit}
            value={name}
            error={errors.name}
            onChange={(e) => setName(e.currentTarget.value)}
            miw={220}
          />
          <Select
            label="Language"
            data={[{ value: EVERY, label: 'Every language' }, ...site.locales.map((l) => ({ value: l, label: l }))]}
            value={locale}
            onChange={(v) => setLocale(v ?? EVERY)}
            allowDeselect={false}
            readOnly={!canEdit}
            error={errors.locale}
            miw={160}
          />
        </Group>
        <TagsInput
          label="Path patterns"
          description="Pages it applies to: /blog/* (everything below /blog), /about, or * (every page); the most specific wins"
          value={patterns}
          onChange={setPatterns}
          readOnly={!canEdit}
          error={errors.pathPatterns}
        />
        <Switch
          label="Default layout (used where no pattern matches)"
          checked={isDefault}
          disabled={!canEdit}
          onChange={(e) => setDefault(e.currentTarget.checked)}
        />
        <TreeInput
          label="Regions"
          description="header, aside, main, footer and 404: each a node tree or null"
          value={regions}
          error={errors.regions}
          readOnly={!canEdit}
          onChange={setRegions}
        />
        <TreeInput
          label="Slots"
          description='Per slot its className and style, e.g. { "body": { "className": "container" } }'
          value={slots}
          error={errors.slots}
          readOnly={!canEdit}
          onChange={setSlots}
        />
        {canEdit && (
          <Group>
            <Button type="submit" loading={busy}>
              Save the layout
            </Button>
          </Group>
        )}
      </Stack>
    </form>
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
              <Paper withBorder p="md">
                <LayoutForm key={l.updatedAt} layout={l} site={s} canEdit={canEdit} />
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
