import { Alert, Button, FileButton, Group, List, Paper, Stack, Text, Textarea, Title } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { routesKey } from './RoutesPanel.tsx';

type Result = { format: string; title: string | null; created: { method: string; path: string }[]; skipped: unknown[] };

/** Bulk-creates routes from an OpenAPI 3 or Swagger 2 document (pasted, or read from a file). */
export function ImportOpenApi({ endpointId }: { endpointId: string }) {
  const client = useQueryClient();
  const [spec, setSpec] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const [result, setResult] = useState<Result>();
  return (
    <Paper withBorder p="lg">
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          setResult(undefined);
          try {
            const answer = unwrap(
              await api.POST('/api/v1/gateway/endpoints/{id}/import-openapi', {
                params: { path: { id: endpointId } },
                body: { spec },
              }),
            );
            setResult(answer);
            await client.invalidateQueries({ queryKey: routesKey(endpointId) });
          } catch (err) {
            setError(err instanceof Error ? err.message : 'The import failed');
          } finally {
            setBusy(false);
          }
        }}
      >
        <Stack>
          <Title order={2} size="h4">
            Import routes from OpenAPI
          </Title>
          <Textarea
            label="OpenAPI or Swagger document"
            description="JSON or YAML; routes that exist already are skipped"
            autosize
            minRows={4}
            maxRows={14}
            value={spec}
            onChange={(e) => setSpec(e.currentTarget.value)}
            error={error}
            styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
          />
          <Group>
            <FileButton
              accept=".json,.yaml,.yml,application/json,application/yaml,text/yaml"
              onChange={async (file) => file && setSpec(await file.text())}
            >
              {(props) => (
                <Button variant="default" {...props}>
                  Read from a file
                </Button>
              )}
            </FileButton>
            <Button type="submit" loading={busy} disabled={!spec.trim()}>
              Import routes
            </Button>
          </Group>
          {result && (
            <Alert color="green" title={`Imported ${result.title ?? 'the document'} (${result.format})`} role="status">
              <Text size="sm">
                {result.created.length} routes created, {result.skipped.length} skipped.
              </Text>
              {result.created.length > 0 && (
                <List size="sm" mt="xs">
                  {result.created.slice(0, 10).map((r) => (
                    <List.Item key={`${r.method} ${r.path}`}>
                      {r.method} {r.path}
                    </List.Item>
                  ))}
                  {result.created.length > 10 && <List.Item>and {result.created.length - 10} more</List.Item>}
                </List>
              )}
            </Alert>
          )}
        </Stack>
      </form>
    </Paper>
  );
}
