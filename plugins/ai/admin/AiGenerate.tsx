import { Button, Group, Paper, Select, Stack, Table, Text, Textarea, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { api, ApiError, PageHeader, QueryState, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { streamGenerate } from './stream.ts';

type Kind = 'text' | 'structure' | 'image' | 'translation';

/** Why a generation failed, in words. */
function problemOf(err: unknown): string {
  if (err instanceof ApiError && err.code === 'AI_NOT_CONFIGURED')
    return 'No AI provider is configured yet: an administrator sets it in AI settings.';
  return err instanceof Error ? err.message : 'The generation failed';
}

function Generated() {
  const [kind, setKind] = useState<Kind | ''>('');
  const query = useQuery({
    queryKey: ['ai', 'generated', kind],
    queryFn: async () =>
      unwrap(
        await api.GET('/ai/generated', { params: { query: { limit: 20, offset: 0, ...(kind ? { kind } : {}) } } }),
      ),
  });
  return (
    <Paper withBorder p="lg">
      <Stack>
        <Group justify="space-between">
          <Title order={2} size="h4">
            Past results
          </Title>
          <Select
            label="Kind"
            data={[
              { value: '', label: 'All' },
              { value: 'text', label: 'Text' },
              { value: 'structure', label: 'Website structure' },
              { value: 'image', label: 'Image' },
              { value: 'translation', label: 'Translation' },
            ]}
            value={kind}
            onChange={(v) => setKind((v ?? '') as Kind | '')}
            allowDeselect={false}
            w={200}
          />
        </Group>
        <QueryState query={query}>
          {(data) =>
            data.items.length === 0 ? (
              <Text size="sm">Nothing generated yet.</Text>
            ) : (
              <Table>
                <Table.Caption>
                  {data.total} result{data.total === 1 ? '' : 's'}, newest first
                </Table.Caption>
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>When</Table.Th>
                    <Table.Th>Kind</Table.Th>
                    <Table.Th>Prompt</Table.Th>
                    <Table.Th>Model</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {data.items.map((item) => (
                    <Table.Tr key={item.id}>
                      <Table.Td>{new Date(item.createdAt).toLocaleString()}</Table.Td>
                      <Table.Td>{item.kind}</Table.Td>
                      <Table.Td>{item.prompt.slice(0, 120)}</Table.Td>
                      <Table.Td>{item.model}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )
          }
        </QueryState>
      </Stack>
    </Paper>
  );
}

/** A prompt, its answer streamed as it arrives, and the past results. */
export default function AiGenerate() {
  const client = useQueryClient();
  const [prompt, setPrompt] = useState('');
  const [system, setSystem] = useState('');
  const [text, setText] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);
  return (
    <>
      <PageHeader
        title="Generate text"
        description="A first draft from a prompt, through the configured AI provider."
      />
      <Stack>
        <Paper withBorder p="lg">
          <form
            aria-label="Generate text"
            onSubmit={async (e) => {
              e.preventDefault();
              const controller = new AbortController();
              abort.current = controller;
              setRunning(true);
              setProblem(null);
              setText('');
              try {
                const answer = await streamGenerate(
                  { prompt: prompt.trim(), ...(system.trim() ? { system: system.trim() } : {}) },
                  setText,
                  controller.signal,
                );
                setText(answer.text);
              } catch (err) {
                if (!controller.signal.aborted) {
                  setText(null);
                  setProblem(problemOf(err));
                }
              } finally {
                setRunning(false);
                await client.invalidateQueries({ queryKey: ['ai', 'generated'] });
              }
            }}
          >
            <Stack>
              <Textarea
                label="Prompt"
                required
                autosize
                minRows={3}
                maxLength={50_000}
                value={prompt}
                onChange={(e) => setPrompt(e.currentTarget.value)}
              />
              <Textarea
                label="Instructions (optional)"
                description="How to answer: tone, length, audience"
                autosize
                minRows={1}
                maxLength={20_000}
                value={system}
                onChange={(e) => setSystem(e.currentTarget.value)}
              />
              <Group>
                <Button type="submit" loading={running} disabled={!prompt.trim()}>
                  Generate
                </Button>
                {running && (
                  <Button variant="default" onClick={() => abort.current?.abort()}>
                    Stop
                  </Button>
                )}
              </Group>
            </Stack>
          </form>
        </Paper>
        {text !== null && (
          <Paper withBorder p="lg">
            <Title order={2} size="h4" mb="xs">
              Result
            </Title>
            <Text role="status" aria-live="polite" className="cms-ai-result" style={{ whiteSpace: 'pre-wrap' }}>
              {text}
            </Text>
          </Paper>
        )}
        {problem && (
          <Text c="red.8" role="alert">
            Nothing was generated: {problem}
          </Text>
        )}
        <Generated />
      </Stack>
    </>
  );
}
