import {
  Alert,
  Anchor,
  Button,
  Checkbox,
  Code,
  CopyButton,
  Group,
  NumberInput,
  Paper,
  Select,
  Stack,
  Switch,
  TagsInput,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import {
  api,
  confirmDestructive,
  PathInput,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { counted, keys, LIST_MAX, pagesOf, type Website } from './content-api.ts';
import { WebsiteFrame } from './WebsiteFrame.tsx';

const MB = 1024 * 1024;

/** Name, root path, languages, domains and kind: a PATCH of what changed. */
function GeneralForm({ site, canEdit }: { site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const initial = {
    name: site.name,
    rootPath: site.rootPath,
    locales: site.locales,
    domains: site.domains,
    kind: site.kind,
  };
  const form = useForm({
    initialValues: initial,
    validate: {
      name: (v) => (v.trim() ? null : 'Name the website'),
      locales: (v) => (v.length ? null : 'Give at least one language'),
    },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        const body = Object.fromEntries(
          Object.entries(v).filter(
            ([k, value]) => JSON.stringify(value) !== JSON.stringify(initial[k as keyof typeof v]),
          ),
        );
        if (Object.keys(body).length === 0) return showSaved('Nothing changed');
        try {
          const saved = unwrap(await api.PATCH('/cms-one/websites/{id}', { params: { path: { id: site.id } }, body }));
          client.setQueryData(keys.website(site.id), saved);
          form.resetDirty(v);
          showSaved(`${saved.name} saved`);
          await client.invalidateQueries({ queryKey: keys.websites, exact: true });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput label="Name" required readOnly={!canEdit} miw={220} {...form.getInputProps('name')} />
          <PathInput
            label="Root path"
            description="The first path segment of its pages, e.g. /shop; changing it moves every page"
            required
            readOnly={!canEdit}
            miw={220}
            {...form.getInputProps('rootPath')}
          />
        </Group>
        <TagsInput
          label="Languages"
          description="Locale codes, e.g. en, de-CH; the first is the default language"
          readOnly={!canEdit}
          {...form.getInputProps('locales')}
        />
        <TagsInput
          label="Domains"
          description="Host names that serve this website, e.g. shop.example.com"
          readOnly={!canEdit}
          {...form.getInputProps('domains')}
        />
        <TextInput
          label="Kind"
          description="website, documentation, app, …"
          readOnly={!canEdit}
          {...form.getInputProps('kind')}
        />
        {canEdit && (
          <Group>
            <Button type="submit" loading={form.submitting}>
              Save the website
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

interface UploadSettings {
  enabled: boolean;
  allowedTypes: string[];
  maxFileBytes: number;
  maxFilesPerSubmit: number;
  dailyBytes: number;
  folder: string;
  visibility: 'private' | 'public';
}

/** Visitor uploads of the website's forms (`/cms-one/websites/:id/upload-settings`). */
function UploadForm({ site, settings, canEdit }: { site: Website; settings: UploadSettings; canEdit: boolean }) {
  const client = useQueryClient();
  const form = useForm({
    initialValues: {
      enabled: settings.enabled,
      allowedTypes: settings.allowedTypes,
      maxFileMb: settings.maxFileBytes / MB,
      maxFilesPerSubmit: settings.maxFilesPerSubmit,
      dailyMb: settings.dailyBytes / MB,
      folder: settings.folder,
      visibility: settings.visibility,
      allowPublicFolder: settings.visibility === 'public',
    },
  });
  const v = form.values;
  return (
    <form
      onSubmit={form.onSubmit(async (values) => {
        try {
          const saved = unwrap<unknown>(
            await api.PUT('/cms-one/websites/{id}/upload-settings', {
              params: { path: { id: site.id } },
              body: {
                enabled: values.enabled,
                allowedTypes: values.allowedTypes,
                maxFileBytes: Math.round(values.maxFileMb * MB),
                maxFilesPerSubmit: values.maxFilesPerSubmit,
                dailyBytes: Math.round(values.dailyMb * MB),
                folder: values.folder,
                visibility: values.visibility,
                ...(values.visibility === 'public' ? { allowPublicFolder: values.allowPublicFolder } : {}),
              },
            }),
          ) as UploadSettings;
          client.setQueryData([...keys.website(site.id), 'uploads'], saved);
          showSaved('Upload settings saved (numbers above the ceilings were lowered to them)');
        } catch (err) {
          showSaveError(err);
        }
      })}
    >
      <Stack>
        <Switch
          label="Visitors may upload files through this website's forms"
          disabled={!canEdit}
          {...form.getInputProps('enabled', { type: 'checkbox' })}
        />
        <TagsInput
          label="Allowed file types"
          description="Types whose content can be checked (image/png, application/pdf, …); HTML, SVG and programs are refused"
          readOnly={!canEdit}
          {...form.getInputProps('allowedTypes')}
        />
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <NumberInput
            label="Largest file (MB)"
            min={0.001}
            decimalScale={3}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('maxFileMb')}
          />
          <NumberInput
            label="Files per submission"
            min={1}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('maxFilesPerSubmit')}
          />
          <NumberInput
            label="Bytes per day (MB)"
            min={0.001}
            decimalScale={3}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('dailyMb')}
          />
        </Group>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput label="Target folder" readOnly={!canEdit} miw={200} {...form.getInputProps('folder')} />
          <Select
            label="Folder visibility"
            data={[
              { value: 'private', label: 'Private (recommended)' },
              { value: 'public', label: 'Public' },
            ]}
            readOnly={!canEdit}
            allowDeselect={false}
            miw={200}
            {...form.getInputProps('visibility')}
          />
        </Group>
        {v.visibility === 'public' && (
          <Checkbox
            label="I understand that visitors' files become readable by anyone"
            disabled={!canEdit}
            {...form.getInputProps('allowPublicFolder', { type: 'checkbox' })}
          />
        )}
        {canEdit && (
          <Group>
            <Button type="submit" loading={form.submitting}>
              Save upload settings
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** The gateway site key: whether one is set; a new one is shown once. */
function SiteKey({ site, canEdit }: { site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const [shown, setShown] = useState<string>();
  const regenerate = async () => {
    if (
      site.siteKey.set &&
      !(await confirmDestructive({
        title: 'Replace the site key?',
        removes: `the current site key of ${site.name}: callers still using it are refused from now on.`,
        confirmLabel: 'Replace the key',
      }))
    )
      return;
    try {
      const { siteKey } = unwrap<unknown>(
        await api.POST('/cms-one/websites/{id}/gateway-api-key/regenerate', { params: { path: { id: site.id } } }),
      ) as { siteKey: string };
      setShown(siteKey);
      await client.invalidateQueries({ queryKey: keys.website(site.id) });
    } catch (err) {
      showSaveError(err);
    }
  };
  const clear = async () => {
    const ok = await confirmDestructive({
      title: 'Remove the site key?',
      removes: `the site key of ${site.name}: gateway calls made with it are refused from now on.`,
      confirmLabel: 'Remove the key',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/websites/{id}/gateway-api-key', { params: { path: { id: site.id } } }));
      setShown(undefined);
      showSaved('Site key removed');
      await client.invalidateQueries({ queryKey: keys.website(site.id) });
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Stack gap="sm" align="flex-start">
      <Text size="sm">
        {site.siteKey.set
          ? 'A site key is set. Only its hash is stored: it cannot be shown again.'
          : 'No site key is set.'}
      </Text>
      {shown && (
        <Alert color="yellow" title="Copy the new site key now" w="100%">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">It is shown only this once.</Text>
            <Group gap="xs" wrap="nowrap" maw="100%">
              <Code style={{ wordBreak: 'break-all' }} aria-label="New site key">
                {shown}
              </Code>
              <CopyButton value={shown}>
                {({ copied, copy }) => (
                  <Button size="compact-xs" variant="light" onClick={copy}>
                    {copied ? 'Copied' : 'Copy key'}
                  </Button>
                )}
              </CopyButton>
            </Group>
          </Stack>
        </Alert>
      )}
      {canEdit && (
        <Group>
          <Button variant="light" onClick={regenerate}>
            {site.siteKey.set ? 'Replace the site key' : 'Make a site key'}
          </Button>
          {site.siteKey.set && (
            <Button variant="outline" color="red" onClick={clear}>
              Remove the site key
            </Button>
          )}
        </Group>
      )}
    </Stack>
  );
}

interface Pwa {
  version: number;
  generatedAt: string;
  manifest: { short_name: string; display: string; theme_color: string; background_color: string };
  serviceWorker: { precache: string[] };
}

const DISPLAYS = ['standalone', 'minimal-ui', 'fullscreen', 'browser'] as const;

/** The installable app: a web app manifest and service worker configuration, generated again on demand. */
function PwaForm({ site, canEdit }: { site: Website; canEdit: boolean }) {
  const client = useQueryClient();
  const current = site.settings.pwa as Pwa | undefined;
  const form = useForm({
    initialValues: {
      shortName: current?.manifest.short_name ?? site.name.slice(0, 12),
      display: current?.manifest.display ?? 'standalone',
      themeColor: current?.manifest.theme_color ?? '',
      backgroundColor: current?.manifest.background_color ?? '',
    },
  });
  return (
    <form
      onSubmit={form.onSubmit(async (v) => {
        try {
          const pwa = unwrap<unknown>(
            await api.POST('/cms-one/websites/{id}/generate-pwa', {
              params: { path: { id: site.id } },
              body: {
                shortName: v.shortName.trim() || undefined,
                display: v.display as (typeof DISPLAYS)[number],
                ...(v.themeColor.trim() ? { themeColor: v.themeColor.trim() } : {}),
                ...(v.backgroundColor.trim() ? { backgroundColor: v.backgroundColor.trim() } : {}),
              },
            }),
          ) as Pwa;
          showSaved(
            `App files generated (version ${pwa.version}, ${counted(pwa.serviceWorker.precache.length, 'page')} kept offline)`,
          );
          await client.invalidateQueries({ queryKey: keys.website(site.id) });
        } catch (err) {
          showSaveError(err, form);
        }
      })}
    >
      <Stack>
        <Text size="sm">
          {current
            ? `Version ${current.version}, generated ${new Date(current.generatedAt).toLocaleString()}: ${counted(current.serviceWorker.precache.length, 'page')} kept offline.`
            : 'Not generated yet.'}{' '}
          Colours left empty come from the active theme (primary, background).
        </Text>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput
            label="Short name"
            maxLength={30}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('shortName')}
          />
          <Select
            label="Display"
            data={[...DISPLAYS]}
            allowDeselect={false}
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('display')}
          />
        </Group>
        <Group grow preventGrowOverflow={false} align="flex-start" wrap="wrap">
          <TextInput
            label="Theme colour"
            placeholder="#1c7ed6"
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('themeColor')}
          />
          <TextInput
            label="Background colour"
            placeholder="#ffffff"
            readOnly={!canEdit}
            miw={160}
            {...form.getInputProps('backgroundColor')}
          />
        </Group>
        {canEdit && (
          <Group>
            <Button type="submit" variant="light" loading={form.submitting}>
              {current ? 'Generate the app files again' : 'Generate the app files'}
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

/** What deleting a website removes, counted, then the deletion. */
function DangerZone({ site }: { site: Website }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const counts = useQuery({
    queryKey: [...keys.website(site.id), 'counts'],
    queryFn: async () => {
      const path = { params: { path: { id: site.id } } };
      const [pages, layouts, menu, themes] = await Promise.all([
        pagesOf(site.id),
        api.GET('/cms-one/websites/{websiteId}/templates', { params: { path: { websiteId: site.id } } }),
        api.GET('/cms-one/website-paths', { params: { query: { websiteId: site.id, limit: 5000, offset: 0 } } }),
        api.GET('/cms-one/websites/{id}/themes', path),
      ]);
      const length = (r: Parameters<typeof unwrap>[0]) => (unwrap<unknown>(r) as unknown[]).length;
      return { pages: pages.length, layouts: length(layouts), menu: length(menu), themes: length(themes) };
    },
  });
  const c = counts.data;
  const pages = c ? (c.pages >= LIST_MAX ? `at least ${LIST_MAX} pages` : counted(c.pages, 'page')) : '';
  const statement = c
    ? `the website ${site.name} (${site.rootPath}), its ${pages} (all languages, with their version history), ${counted(c.layouts, 'layout template')}, ${counted(c.menu, 'menu entry', 'menu entries')} and ${counted(c.themes, 'website theme')}. Snippets assigned to it and uploaded assets stay.`
    : '';
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete the website ${site.name}?`,
      removes: statement,
      confirmLabel: 'Delete the website',
    });
    if (!ok) return;
    try {
      unwrap(await api.DELETE('/cms-one/websites/{id}', { params: { path: { id: site.id } } }));
      showSaved(`${site.name} deleted`);
      client.removeQueries({ queryKey: keys.website(site.id) });
      await client.invalidateQueries({ queryKey: keys.all });
      await navigate('/admin/websites');
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
      <Title order={2} size="h4" mb="xs">
        Delete the website
      </Title>
      <Stack gap="sm" align="flex-start">
        <Text size="sm">{c ? `Deleting removes ${statement}` : 'Counting what the website holds…'}</Text>
        <Button color="red" onClick={remove} disabled={!c}>
          Delete the website
        </Button>
      </Stack>
    </Paper>
  );
}

/** `/admin/websites/:id`: the website's settings, uploads, site key, export and deletion. */
export default function WebsiteSettings() {
  const can = useCan();
  const canEdit = can('websites:edit');
  return (
    <WebsiteFrame section="Settings">
      {(site) => (
        <Stack gap="lg">
          <Paper withBorder p="md">
            <GeneralForm key={site.updatedAt} site={site} canEdit={canEdit} />
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              Visitor uploads
            </Title>
            <Uploads site={site} canEdit={canEdit} />
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              Gateway site key
            </Title>
            <SiteKey site={site} canEdit={canEdit} />
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              Installable app
            </Title>
            <PwaForm key={site.updatedAt} site={site} canEdit={canEdit} />
          </Paper>
          <Paper withBorder p="md">
            <Title order={2} size="h4" mb="sm">
              Export
            </Title>
            <Text size="sm" mb="xs">
              The website's pages, layouts, menu, themes, the data objects and assets they use, as one file another
              installation can import.
            </Text>
            <Anchor href={`/cms-one/websites/${site.id}/export`} download={`website-${site.rootPath.slice(1)}.json`}>
              Download the export
            </Anchor>
          </Paper>
          {can('websites:delete') && <DangerZone site={site} />}
        </Stack>
      )}
    </WebsiteFrame>
  );
}

function Uploads({ site, canEdit }: { site: Website; canEdit: boolean }) {
  const settings = useQuery({
    queryKey: [...keys.website(site.id), 'uploads'],
    queryFn: async () =>
      unwrap<unknown>(
        await api.GET('/cms-one/websites/{id}/upload-settings', { params: { path: { id: site.id } } }),
      ) as UploadSettings,
  });
  return <QueryState query={settings}>{(s) => <UploadForm site={site} settings={s} canEdit={canEdit} />}</QueryState>;
}
