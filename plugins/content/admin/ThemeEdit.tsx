import {
  ActionIcon,
  Anchor,
  Badge,
  Button,
  Group,
  Paper,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { IconPlus, IconTrash } from '@tabler/icons-react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import {
  api,
  ApiError,
  confirmDestructive,
  EmptyState,
  PageHeader,
  QueryState,
  showSaved,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { keys, shortDate, type Theme, useThemes } from './content-api.ts';

type Pair = { key: string; value: string };
const pairs = (r: Record<string, string>): Pair[] => Object.entries(r).map(([key, value]) => ({ key, value }));
const record = (p: Pair[]) => Object.fromEntries(p.filter((x) => x.key.trim()).map((x) => [x.key.trim(), x.value]));

/** Named values (colours, fonts): a row per variable, its name and its value. */
function Variables(props: {
  legend: string;
  noun: string;
  example: string;
  rows: Pair[];
  onChange: (rows: Pair[]) => void;
  readOnly: boolean;
  error?: string;
}) {
  const set = (i: number, change: Partial<Pair>) =>
    props.onChange(props.rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <fieldset style={{ border: 0, padding: 0, margin: 0 }}>
      <Title order={2} size="h4" mb="xs" component="legend">
        {props.legend}
      </Title>
      <Stack gap="xs">
        {props.rows.length === 0 && (
          <Text size="sm" c="dimmed">
            No {props.noun} variables yet.
          </Text>
        )}
        {props.rows.map((r, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity but their position while edited
          <Group key={i} align="flex-end" wrap="nowrap" gap="xs">
            <TextInput
              label={`${props.legend} ${i + 1} name`}
              value={r.key}
              readOnly={props.readOnly}
              onChange={(e) => set(i, { key: e.currentTarget.value })}
              style={{ flex: 1 }}
            />
            <TextInput
              label={`${props.legend} ${i + 1} value`}
              value={r.value}
              placeholder={props.example}
              readOnly={props.readOnly}
              onChange={(e) => set(i, { value: e.currentTarget.value })}
              style={{ flex: 2 }}
            />
            {!props.readOnly && (
              <ActionIcon
                variant="subtle"
                color="red"
                size="lg"
                aria-label={`Remove ${props.noun} ${r.key || i + 1}`}
                onClick={() => props.onChange(props.rows.filter((_, j) => j !== i))}
              >
                <IconTrash size={16} aria-hidden />
              </ActionIcon>
            )}
          </Group>
        ))}
        {props.error && (
          <Text size="sm" c="red" role="alert">
            {props.error}
          </Text>
        )}
        {!props.readOnly && (
          <Group>
            <Button
              size="compact-sm"
              variant="light"
              leftSection={<IconPlus size={14} aria-hidden />}
              onClick={() => props.onChange([...props.rows, { key: '', value: '' }])}
            >
              Add a {props.noun}
            </Button>
          </Group>
        )}
      </Stack>
    </fieldset>
  );
}

function ThemeForm({ theme, canEdit }: { theme: Theme; canEdit: boolean }) {
  const client = useQueryClient();
  const [name, setName] = useState(theme.name);
  const [colors, setColors] = useState(pairs(theme.colors));
  const [fonts, setFonts] = useState(pairs(theme.fonts));
  const [css, setCss] = useState(theme.customStyles);
  const [error, setError] = useState<{ field: string; message: string }>();
  const [busy, setBusy] = useState(false);
  const save = async () => {
    setBusy(true);
    setError(undefined);
    const body = { name: name.trim(), colors: record(colors), fonts: record(fonts), customStyles: css };
    try {
      const saved = unwrap(
        theme.websiteId
          ? await api.PUT('/cms-one/websites/{id}/themes/{themeId}', {
              params: { path: { id: theme.websiteId, themeId: theme.id } },
              body,
            })
          : await api.PUT('/cms-one/themes/{id}', { params: { path: { id: theme.id } }, body }),
      );
      await client.invalidateQueries({ queryKey: keys.themes(theme.websiteId) });
      showSaved(`${saved.name} saved`);
    } catch (err) {
      if (err instanceof ApiError && err.field) setError({ field: err.field.split('.')[0], message: err.message });
      showSaveError(err);
    } finally {
      setBusy(false);
    }
  };
  const errorOf = (f: string) => (error?.field === f ? error.message : undefined);
  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <Stack gap="lg">
        <TextInput
          label="Name"
          required
          readOnly={!canEdit}
          value={name}
          error={errorOf('name')}
          onChange={(e) => setName(e.currentTarget.value)}
        />
        <Variables
          legend="Colour"
          noun="colour"
          example="#1c7ed6"
          rows={colors}
          onChange={setColors}
          readOnly={!canEdit}
          error={errorOf('colors')}
        />
        <Variables
          legend="Font"
          noun="font"
          example="Inter, sans-serif"
          rows={fonts}
          onChange={setFonts}
          readOnly={!canEdit}
          error={errorOf('fonts')}
        />
        <Textarea
          label="Custom styles (CSS)"
          description="Added after the variables; the variables are available as var(--name)"
          autosize
          minRows={6}
          maxRows={30}
          readOnly={!canEdit}
          value={css}
          error={errorOf('customStyles')}
          onChange={(e) => setCss(e.currentTarget.value)}
          styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        />
        {canEdit && (
          <Group>
            <Button type="submit" loading={busy}>
              Save the theme
            </Button>
          </Group>
        )}
      </Stack>
    </form>
  );
}

function ThemeScreen({ theme }: { theme: Theme }) {
  const can = useCan();
  const client = useQueryClient();
  const navigate = useNavigate();
  const canEdit = can(theme.websiteId ? 'websites:edit' : 'themes:edit');
  const back = theme.websiteId ? `/admin/websites/${theme.websiteId}/themes` : '/admin/themes';
  const activate = async () => {
    if (!theme.websiteId) return;
    try {
      unwrap(
        await api.PUT('/cms-one/websites/{id}/theme', {
          params: { path: { id: theme.websiteId } },
          body: { themeId: theme.id },
        }),
      );
      showSaved(`${theme.name} is the website's active theme`);
      await client.invalidateQueries({ queryKey: keys.themes(theme.websiteId) });
    } catch (err) {
      showSaveError(err);
    }
  };
  const remove = async () => {
    const ok = await confirmDestructive({
      title: `Delete the theme ${theme.name}?`,
      removes: `the theme ${theme.name} with its ${Object.keys(theme.colors).length} colours, ${
        Object.keys(theme.fonts).length
      } fonts and its custom styles${theme.isDefault ? '; the website then has no active theme' : ''}.`,
      confirmLabel: 'Delete the theme',
    });
    if (!ok) return;
    try {
      unwrap(
        theme.websiteId
          ? await api.DELETE('/cms-one/websites/{id}/themes/{themeId}', {
              params: { path: { id: theme.websiteId, themeId: theme.id } },
            })
          : await api.DELETE('/cms-one/themes/{id}', { params: { path: { id: theme.id } } }),
      );
      showSaved(`${theme.name} deleted`);
      await client.invalidateQueries({ queryKey: keys.themes(theme.websiteId) });
      await navigate(back);
    } catch (err) {
      showSaveError(err);
    }
  };
  return (
    <>
      <PageHeader
        title={theme.name}
        description={
          <>
            {theme.isDefault && (
              <Badge color="green" variant="light" mr="xs">
                Active
              </Badge>
            )}
            {theme.websiteId ? 'A website theme' : 'A global theme'} · changed {shortDate(theme.updatedAt)} ·{' '}
            <Anchor underline="always" component={Link} to={back}>
              {theme.websiteId ? "The website's themes" : 'All themes'}
            </Anchor>
          </>
        }
        actions={
          theme.websiteId &&
          !theme.isDefault &&
          canEdit && (
            <Button variant="light" onClick={activate}>
              Make it the active theme
            </Button>
          )
        }
      />
      <Paper withBorder p="md">
        <ThemeForm key={theme.updatedAt} theme={theme} canEdit={canEdit} />
      </Paper>
      {canEdit && (
        <Paper withBorder p="md" mt="xl" style={{ borderColor: 'var(--mantine-color-red-4)' }}>
          <Stack gap="sm" align="flex-start">
            <Title order={2} size="h4">
              Delete the theme
            </Title>
            <Button color="red" onClick={remove}>
              Delete the theme
            </Button>
          </Stack>
        </Paper>
      )}
    </>
  );
}

/** A website's theme: found in its catalog (the API has no route for one website theme). */
function WebsiteTheme({ websiteId, themeId }: { websiteId: string; themeId: string }) {
  const themes = useThemes(websiteId);
  return (
    <QueryState query={themes}>
      {(list) => {
        const theme = list.find((t) => t.id === themeId);
        return theme ? (
          <ThemeScreen theme={theme} />
        ) : (
          <>
            <PageHeader title="Theme not found" />
            <EmptyState title="This website has no such theme">
              <Anchor component={Link} to={`/admin/websites/${websiteId}/themes`}>
                The website's themes
              </Anchor>
            </EmptyState>
          </>
        );
      }}
    </QueryState>
  );
}

function GlobalTheme({ id }: { id: string }) {
  const theme = useQuery({
    queryKey: [...keys.themes(null), id],
    queryFn: async () => unwrap(await api.GET('/cms-one/themes/{id}', { params: { path: { id } } })),
  });
  return <QueryState query={theme}>{(t) => <ThemeScreen theme={t} />}</QueryState>;
}

/** `/admin/themes/:themeId` and `/admin/websites/:id/themes/:themeId`: a theme's variables and CSS. */
export default function ThemeEdit() {
  const { id, theme: themeId = '' } = useParams();
  return id ? <WebsiteTheme websiteId={id} themeId={themeId} /> : <GlobalTheme id={themeId} />;
}
