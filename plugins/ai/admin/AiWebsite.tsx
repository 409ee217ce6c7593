import { ActionIcon, Button, Group, List, Paper, Stack, Text, Textarea, TextInput, Title } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import {
  api,
  ApiError,
  type ApiAnswer,
  PageHeader,
  TextLink,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';

type Structure = ApiAnswer<'/ai/generate-website-structure', 'post'>['structure'];
type MenuEntry = Structure['menu'][number];
type Created = ApiAnswer<'/cms-one/websites/from-ai', 'post', 201>;

/** Why a step failed, in words. */
function problemOf(err: unknown): string {
  if (err instanceof ApiError && err.code === 'AI_NOT_CONFIGURED')
    return 'No AI provider is configured yet: an administrator sets it in AI settings.';
  return err instanceof Error ? err.message : 'The request failed';
}

/** The menu without the entries that point at `path` (a page that was removed). */
function withoutPath<T extends { path: string; children?: T[] }>(entries: T[], path: string): T[] {
  return entries
    .filter((e) => e.path !== path)
    .map((e) => (e.children ? { ...e, children: withoutPath(e.children, path) } : e));
}

/** The menu entry at `at` (indexes from the top) renamed or removed. */
function editMenu(entries: MenuEntry[], at: number[], title: string | null): MenuEntry[] {
  const [i, ...rest] = at;
  return entries.flatMap((e, j) => {
    if (j !== i) return [e];
    if (rest.length > 0) return [{ ...e, children: editMenu((e.children ?? []) as MenuEntry[], rest, title) }];
    return title === null ? [] : [{ ...e, title }];
  });
}

function MenuTree(props: { entries: MenuEntry[]; at: number[]; onEdit: (at: number[], title: string | null) => void }) {
  return (
    <List listStyleType="none" withPadding={props.at.length > 0} spacing="xs">
      {props.entries.map((e, i) => {
        const at = [...props.at, i];
        return (
          <List.Item key={at.join('.')}>
            <Group gap="xs" wrap="nowrap">
              <TextInput
                aria-label={`Menu entry ${e.path}`}
                value={e.title}
                maxLength={200}
                onChange={(ev) => props.onEdit(at, ev.currentTarget.value)}
              />
              <ActionIcon
                variant="subtle"
                color="red.8"
                aria-label={`Remove menu entry ${e.path}`}
                onClick={() => props.onEdit(at, null)}
              >
                <IconTrash size={16} />
              </ActionIcon>
            </Group>
            {e.children && e.children.length > 0 && (
              <MenuTree entries={e.children as MenuEntry[]} at={at} onEdit={props.onEdit} />
            )}
          </List.Item>
        );
      })}
    </List>
  );
}

/** A brief → a proposed website structure, edited as a tree → the website, its draft pages and its menu. */
export default function AiWebsite() {
  const can = useCan();
  const [brief, setBrief] = useState('');
  const [running, setRunning] = useState<'generate' | 'create' | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [structure, setStructure] = useState<Structure | null>(null);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [created, setCreated] = useState<Created | null>(null);
  const mayCreate = can('objects:write');

  const generate = async () => {
    setRunning('generate');
    setProblem(null);
    setCreated(null);
    try {
      const answer = unwrap(await api.POST('/ai/generate-website-structure', { body: { brief: brief.trim() } }));
      setStructure(answer.structure);
      setWarnings(answer.warnings);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setRunning(null);
    }
  };
  const create = async () => {
    if (!structure) return;
    setRunning('create');
    setProblem(null);
    try {
      setCreated(unwrap(await api.POST('/cms-one/websites/from-ai', { body: { structure } })));
      setStructure(null);
    } catch (err) {
      setProblem(problemOf(err));
    } finally {
      setRunning(null);
    }
  };
  const set = (over: Partial<Structure>) => setStructure((s) => (s ? { ...s, ...over } : s));

  return (
    <>
      <PageHeader
        title="New website from a brief"
        description="The AI provider proposes a website: its pages and its menu. Edit the proposal, then create it; its pages start as drafts."
      />
      <Stack>
        <Paper withBorder p="lg">
          <form
            aria-label="Website brief"
            onSubmit={(e) => {
              e.preventDefault();
              void generate();
            }}
          >
            <Stack>
              <Textarea
                label="Brief"
                description="Who the website is for, what it offers, which pages it needs"
                required
                autosize
                minRows={3}
                maxLength={20_000}
                value={brief}
                onChange={(e) => setBrief(e.currentTarget.value)}
              />
              <Group>
                <Button type="submit" loading={running === 'generate'} disabled={!brief.trim() || running !== null}>
                  Propose a structure
                </Button>
              </Group>
              {running === 'generate' && (
                <Text size="sm" role="status" aria-live="polite">
                  Generating the structure…
                </Text>
              )}
            </Stack>
          </form>
        </Paper>
        {problem && (
          <Text c="red.8" role="alert">
            Nothing was created: {problem}
          </Text>
        )}
        {structure && (
          <Paper withBorder p="lg">
            <form
              aria-label="Proposed website"
              onSubmit={(e) => {
                e.preventDefault();
                void create();
              }}
            >
              <Stack>
                <Title order={2} size="h4">
                  Proposed website
                </Title>
                {warnings.map((w) => (
                  <Text key={w} size="sm" c="orange.9">
                    {w}
                  </Text>
                ))}
                <Group grow>
                  <TextInput
                    label="Name"
                    required
                    maxLength={200}
                    value={structure.name}
                    onChange={(e) => set({ name: e.currentTarget.value })}
                  />
                  <TextInput
                    label="Root path"
                    required
                    maxLength={200}
                    value={structure.rootPath}
                    onChange={(e) => set({ rootPath: e.currentTarget.value })}
                  />
                </Group>
                <Text size="sm">Locales: {structure.locales.join(', ')}</Text>
                <Title order={3} size="h5">
                  Pages ({structure.pages.length})
                </Title>
                <List listStyleType="none" spacing="xs" aria-label="Pages">
                  {structure.pages.map((pg, i) => (
                    <List.Item key={`${pg.locale}${pg.path}`}>
                      <Group gap="xs" wrap="nowrap">
                        <TextInput
                          aria-label={`Title of ${pg.path}`}
                          value={pg.title}
                          maxLength={300}
                          onChange={(e) => {
                            const title = e.currentTarget.value;
                            set({ pages: structure.pages.map((p, j) => (j === i ? { ...p, title } : p)) });
                          }}
                        />
                        <Text size="sm" ff="monospace">
                          {pg.path} ({pg.locale})
                        </Text>
                        <ActionIcon
                          variant="subtle"
                          color="red.8"
                          aria-label={`Remove page ${pg.path}`}
                          disabled={structure.pages.length === 1}
                          onClick={() =>
                            set({
                              pages: structure.pages.filter((_, j) => j !== i),
                              menu: structure.pages.some((p, j) => j !== i && p.path === pg.path)
                                ? structure.menu
                                : withoutPath(structure.menu, pg.path),
                            })
                          }
                        >
                          <IconTrash size={16} />
                        </ActionIcon>
                      </Group>
                    </List.Item>
                  ))}
                </List>
                <Title order={3} size="h5">
                  Menu
                </Title>
                {structure.menu.length === 0 ? (
                  <Text size="sm">No menu entries.</Text>
                ) : (
                  <MenuTree
                    entries={structure.menu}
                    at={[]}
                    onEdit={(at, title) => set({ menu: editMenu(structure.menu, at, title) })}
                  />
                )}
                <Group>
                  {mayCreate ? (
                    <Button type="submit" loading={running === 'create'} disabled={running !== null}>
                      Create website
                    </Button>
                  ) : (
                    <Text size="sm">Creating a website needs the permission objects:write.</Text>
                  )}
                  <Button variant="default" onClick={() => setStructure(null)} disabled={running !== null}>
                    Discard
                  </Button>
                </Group>
              </Stack>
            </form>
          </Paper>
        )}
        {created && (
          <Paper withBorder p="lg" role="status">
            <Text>
              Website <strong>{created.website.name}</strong> created with {created.pageIds.length} draft page
              {created.pageIds.length === 1 ? '' : 's'}:{' '}
              <TextLink to={`/admin/websites/${created.website.id}/pages`}>open its pages</TextLink>
            </Text>
          </Paper>
        )}
      </Stack>
    </>
  );
}
