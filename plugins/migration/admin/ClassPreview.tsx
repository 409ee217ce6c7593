import { Alert, Button, Checkbox, Group, List, Stack, Text, Title } from '@mantine/core';
import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, QueryState, Section, showSaveError, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { ImportClassesResult } from './ImportClassesResult.tsx';
import { ActionBadge, MappingTable } from './MappingTable.tsx';
import type { ClassPreview as Preview, Source } from './model.ts';
import { SourceFrame } from './SourceFrame.tsx';

function Classes(props: { source: Source; preview: Preview; onImported: () => unknown }) {
  const can = useCan();
  const [selected, setSelected] = useState<string[]>([]);
  const { source, preview } = props;
  const run = useMutation({
    mutationFn: async (classes?: string[]) =>
      unwrap(
        await api.POST('/migration-sources/{id}/import-classes', {
          params: { path: { id: source.id } },
          body: classes ? { classes } : {},
        }),
      ),
    onSuccess: () => props.onImported(),
    onError: (err) => showSaveError(err),
  });
  const mayImport = can('data_classes:manage');
  return (
    <Stack>
      {mayImport && (
        <Group>
          <Button loading={run.isPending && !run.variables} onClick={() => run.mutate(undefined)}>
            Import all classes
          </Button>
          <Button
            variant="light"
            disabled={selected.length === 0}
            loading={run.isPending && !!run.variables}
            onClick={() => run.mutate(selected)}
          >
            Import selected classes ({selected.length})
          </Button>
        </Group>
      )}
      {run.data && <ImportClassesResult result={run.data} />}
      {preview.classes.map((c) => (
        <Section key={c.name}>
          <Stack gap="sm">
            <Group justify="space-between">
              <Title order={3} size="h5">
                {c.name} <ActionBadge action={c.action} />
              </Title>
              {mayImport && (
                <Checkbox
                  label={`Select ${c.name}`}
                  checked={selected.includes(c.name)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    setSelected((s) => (on ? [...s, c.name] : s.filter((n) => n !== c.name)));
                  }}
                />
              )}
            </Group>
            {c.reason && <Text size="sm">{c.reason}</Text>}
            <MappingTable label={`Fields of ${c.name}`} fields={c.fields} />
          </Stack>
        </Section>
      ))}
    </Stack>
  );
}

function Components({ source, preview }: { source: Source; preview: Preview }) {
  const can = useCan();
  const extract = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/migration-sources/{id}/extract-components', { params: { path: { id: source.id } }, body: {} }),
      ),
    onError: (err) => showSaveError(err),
  });
  if (preview.components.length === 0) return null;
  return (
    <Section title="Field collections and object bricks">
      <Stack>
        <Text size="sm">
          The classes keep them as json fields. Extracting makes each one a data component with the same fields, for new
          classes to use.
        </Text>
        {can('data_classes:manage') && (
          <Group>
            <Button variant="light" loading={extract.isPending} onClick={() => extract.mutate()}>
              Extract as components
            </Button>
          </Group>
        )}
        {extract.data && <ImportClassesResult result={extract.data} title="Components extracted" />}
        {preview.components.map((c) => (
          <Stack key={c.name} gap="xs">
            <Title order={3} size="h5">
              {c.name} ({c.kind === 'fieldcollection' ? 'field collection' : 'object brick'})
            </Title>
            <MappingTable label={`Fields of ${c.name}`} fields={c.fields} />
          </Stack>
        ))}
      </Stack>
    </Section>
  );
}

/** `/admin/migration/:id/classes`: the class mapping table (creates nothing) and the class import. */
export default function ClassPreview() {
  return <SourceFrame step="classes">{(source) => <ClassesOf source={source} />}</SourceFrame>;
}

function ClassesOf({ source }: { source: Source }) {
  const query = useQuery({
    queryKey: ['migration', 'preview-classes', source.id],
    queryFn: async () =>
      unwrap(
        await api.POST('/migration-sources/{id}/preview-classes', { params: { path: { id: source.id } }, body: {} }),
      ),
  });
  return (
    <QueryState query={query}>
      {(preview) => (
        <Stack>
          <Text size="sm" c="dimmed">
            What importing does with each class of the source: create it, reuse the class of that name here, or leave it
            when its fields differ (conflict).
          </Text>
          {preview.warnings.length > 0 && (
            <Alert color="orange" title="Warnings">
              <List size="sm">
                {preview.warnings.map((w) => (
                  <List.Item key={w}>{w}</List.Item>
                ))}
              </List>
            </Alert>
          )}
          <Classes source={source} preview={preview} onImported={() => query.refetch()} />
          <Components source={source} preview={preview} />
        </Stack>
      )}
    </QueryState>
  );
}
