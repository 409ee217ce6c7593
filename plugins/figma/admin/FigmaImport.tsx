import {
  Alert,
  Anchor,
  Badge,
  Button,
  ColorSwatch,
  Group,
  List,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { IconCircleCheck } from '@tabler/icons-react';
import { useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  api,
  ApiError,
  EmptyState,
  ErrorState,
  LoadingState,
  PageHeader,
  PathInput,
  TextLink,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { editorUrl, type ImportResult, KEYS, sourceOf, summarise } from './model.ts';

type Values = { link: string; frame: string; websiteId: string; locale: string; path: string; title: string };

/** The API's field, as this form's. */
const FORM_FIELD: Record<string, keyof Values> = {
  url: 'link',
  fileKey: 'link',
  nodeId: 'frame',
  websiteId: 'websiteId',
  locale: 'locale',
  path: 'path',
  title: 'title',
};

/** A refused import: what the server said, with the way out when there is one. */
function ImportError({ error }: { error: unknown }) {
  const can = useCan();
  // A missing permission says "Not allowed"; anything else the server explains is shown as it said it.
  if (!(error instanceof ApiError) || error.code === 'FORBIDDEN') return <ErrorState error={error} />;
  return (
    <Alert color="red" role="alert" title="Not imported">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">{error.message}</Text>
        <Text size="xs" c="dimmed">
          Code {error.code}. Nothing was stored: no page, no image.
        </Text>
        {(error.code === 'FIGMA_TOKEN_MISSING' || error.code === 'FIGMA_ACCESS_DENIED') &&
          (can('settings:manage') ? (
            <TextLink to="/admin/figma/settings">Set the Figma access token</TextLink>
          ) : (
            <Text size="sm">Ask an administrator to set the Figma access token.</Text>
          ))}
      </Stack>
    </Alert>
  );
}

/** What a preview found: counts, the headings in order, the page's frames, warnings, fonts and colours. */
function Preview(props: { result: ImportResult; onPickFrame: (id: string) => void }) {
  const { result } = props;
  const sum = summarise(result.content);
  const [frame, setFrame] = useState<string | null>(null);
  return (
    <Paper withBorder p="lg" aria-labelledby="figma-preview-title" component="section">
      <Stack gap="md">
        <Title order={2} size="h4" id="figma-preview-title">
          Preview: {result.source.name}
        </Title>
        <SimpleGrid cols={{ base: 2, sm: 5 }}>
          {(
            [
              ['Headings', sum.headings],
              ['Paragraphs', sum.paragraphs],
              ['Buttons', sum.buttons],
              ['Images', sum.images],
              ['Containers', sum.containers],
            ] as const
          ).map(([label, n]) => (
            <Stack key={label} gap={0}>
              <Text size="xl" fw={700}>
                {n}
              </Text>
              <Text size="sm" c="dimmed">
                {label}
              </Text>
            </Stack>
          ))}
        </SimpleGrid>
        {sum.outline.length > 0 && (
          <Stack gap={4}>
            <Title order={3} size="h5">
              Headings
            </Title>
            <List size="sm" aria-label="Imported headings">
              {sum.outline.map((h, i) => (
                // biome-ignore lint/suspicious/noArrayIndexKey: the outline is read-only and never reordered
                <List.Item key={i}>
                  <Badge size="xs" variant="light" mr="xs">
                    {h.type}
                  </Badge>
                  {h.text}
                </List.Item>
              ))}
            </List>
          </Stack>
        )}
        {result.frames.length > 0 && (
          <Group align="flex-end">
            <Select
              label="Frames on this page"
              description="The whole page was imported; import one frame of it instead"
              data={result.frames.map((f) => ({ value: f.id, label: `${f.name} (${f.id})` }))}
              value={frame}
              onChange={setFrame}
              maw={420}
            />
            <Button variant="default" disabled={!frame} onClick={() => frame && props.onPickFrame(frame)}>
              Import this frame
            </Button>
          </Group>
        )}
        {result.warnings.length > 0 && (
          <Stack gap={4}>
            <Title order={3} size="h5">
              Left out ({result.warnings.length})
            </Title>
            <Table aria-label="Import warnings" striped>
              <Table.Thead>
                <Table.Tr>
                  <Table.Th>Layer</Table.Th>
                  <Table.Th>Why</Table.Th>
                </Table.Tr>
              </Table.Thead>
              <Table.Tbody>
                {result.warnings.slice(0, 50).map((w, i) => (
                  // biome-ignore lint/suspicious/noArrayIndexKey: two warnings may name the same layer
                  <Table.Tr key={i}>
                    <Table.Td>{w.nodeName ?? '—'}</Table.Td>
                    <Table.Td>{w.message}</Table.Td>
                  </Table.Tr>
                ))}
              </Table.Tbody>
            </Table>
          </Stack>
        )}
        {(result.fonts.length > 0 || result.colors.length > 0) && (
          <Stack gap={4}>
            <Title order={3} size="h5">
              For the website's theme
            </Title>
            {result.fonts.length > 0 && (
              <Text size="sm">
                Fonts: {result.fonts.map((f) => `${f.family} (${f.weights.join(', ')})`).join('; ')}
              </Text>
            )}
            {result.colors.length > 0 && (
              <Group gap="xs" aria-label="Colours">
                {result.colors.slice(0, 24).map((c) => (
                  <Group key={c.hex} gap={4}>
                    <ColorSwatch color={c.hex} size={16} aria-hidden />
                    <Text size="xs">{c.hex}</Text>
                  </Group>
                ))}
              </Group>
            )}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}

/** The page made: where to edit it. */
function Created({ result }: { result: ImportResult }) {
  const page = result.page!;
  return (
    <Alert color="green" icon={<IconCircleCheck />} title="Draft page created" role="status">
      <Stack gap="xs" align="flex-start">
        <Text size="sm">
          “{page.title}” at {page.path} ({page.locale}) is a draft with {result.assets.length} images in the asset
          library. Edit it and publish it in the page editor.
        </Text>
        <Group>
          <Button component="a" href={editorUrl(page.id)}>
            Open in the page editor
          </Button>
          <Anchor component={Link} to={`/admin/pages/${page.id}`} underline="always" size="sm">
            Page details
          </Anchor>
        </Group>
      </Stack>
    </Alert>
  );
}

/**
 * `/admin/figma/import` (`?websiteId=` preselects the website): paste a Figma link, preview what it
 * becomes, create the draft page.
 */
export default function FigmaImport() {
  const [params] = useSearchParams();
  const client = useQueryClient();
  const websites = useQuery({
    queryKey: KEYS.websites,
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
    retry: false,
  });
  const form = useForm<Values>({
    initialValues: { link: '', frame: '', websiteId: params.get('websiteId') ?? '', locale: '', path: '', title: '' },
    validate: {
      link: (v) => (v.trim() ? null : 'Paste a Figma link or a file key'),
      websiteId: (v) => (v ? null : 'Choose the website the page belongs to'),
      locale: (v) => (v ? null : 'Choose the language of the page'),
    },
  });
  const [busy, setBusy] = useState<'preview' | 'create'>();
  const [state, setState] = useState<{ result?: ImportResult; error?: unknown }>({});
  const website = websites.data?.find((w) => w.id === form.values.websiteId);
  const locales = website?.locales ?? [];
  // The website's first language until another is chosen.
  const firstLocale = website && !form.values.locale ? locales[0] : undefined;
  useEffect(() => {
    if (firstLocale) form.setFieldValue('locale', firstLocale);
  }, [firstLocale, form.setFieldValue]);

  const run = async (create: boolean, values: Values) => {
    setBusy(create ? 'create' : 'preview');
    setState({});
    try {
      const result = unwrap(
        await api.POST('/figma/import', {
          body: {
            ...sourceOf(values.link, values.frame),
            websiteId: values.websiteId,
            locale: values.locale,
            ...(values.path.trim() ? { path: values.path.trim() } : {}),
            ...(values.title.trim() ? { title: values.title.trim() } : {}),
            ...(create ? { create: true } : {}),
          },
        }),
      );
      setState({ result });
      if (create) await client.invalidateQueries({ queryKey: ['content'] });
    } catch (err) {
      const field = err instanceof ApiError && err.field ? FORM_FIELD[err.field] : undefined;
      if (field) form.setFieldError(field, (err as Error).message);
      setState({ error: err });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <>
      <PageHeader
        title="Import from Figma"
        description="A Figma frame becomes an editable draft page: headings, paragraphs, buttons, images and layout containers. Its images go into the asset library."
      />
      <Stack gap="lg">
        {websites.error ? (
          <ErrorState error={websites.error} onRetry={() => websites.refetch()} />
        ) : (
          <Paper withBorder p="lg">
            <form noValidate onSubmit={form.onSubmit((v) => run(false, v))}>
              <Stack gap="md" maw={640}>
                <TextInput
                  label="Figma link or file key"
                  description="Copy the link of a frame in Figma (Share → Copy link); a link to the file imports its first page"
                  placeholder="https://www.figma.com/design/…?node-id=12-34"
                  required
                  {...form.getInputProps('link')}
                />
                <TextInput
                  label="Frame"
                  description="Optional: a node id such as 12:34; it replaces the link's node-id"
                  {...form.getInputProps('frame')}
                />
                <Group grow align="flex-start">
                  <Select
                    label="Website"
                    required
                    placeholder={websites.isPending ? 'Loading websites…' : 'Choose a website'}
                    data={(websites.data ?? []).map((w) => ({ value: w.id, label: w.name }))}
                    {...form.getInputProps('websiteId')}
                    onChange={(v) => {
                      form.setFieldValue('websiteId', v ?? '');
                      form.setFieldValue('locale', '');
                    }}
                  />
                  <Select
                    label="Language"
                    required
                    data={locales}
                    disabled={!website}
                    {...form.getInputProps('locale')}
                    onChange={(v) => form.setFieldValue('locale', v ?? '')}
                  />
                </Group>
                <Group grow align="flex-start">
                  <PathInput
                    label="Page path"
                    description="Default: / and the frame's name"
                    placeholder="/landing"
                    {...form.getInputProps('path')}
                  />
                  <TextInput
                    label="Page title"
                    description="Default: the frame's name"
                    {...form.getInputProps('title')}
                  />
                </Group>
                <Group>
                  <Button type="submit" variant="default" loading={busy === 'preview'} disabled={busy === 'create'}>
                    Preview
                  </Button>
                  <Button
                    loading={busy === 'create'}
                    disabled={busy === 'preview'}
                    onClick={() => {
                      if (!form.validate().hasErrors) void run(true, form.values);
                    }}
                  >
                    Create draft page
                  </Button>
                </Group>
              </Stack>
            </form>
          </Paper>
        )}
        {busy ? (
          <LoadingState
            label={busy === 'create' ? 'Importing from Figma and creating the page' : 'Importing from Figma'}
          />
        ) : state.error ? (
          <ImportError error={state.error} />
        ) : state.result ? (
          <>
            {state.result.page && <Created result={state.result} />}
            <Preview
              result={state.result}
              onPickFrame={(id) => {
                form.setFieldValue('frame', id);
                void run(false, { ...form.values, frame: id });
              }}
            />
          </>
        ) : (
          <EmptyState title="Nothing imported yet">
            Paste a link to a Figma frame, choose the website, then preview it or create the draft page right away.
          </EmptyState>
        )}
      </Stack>
    </>
  );
}
