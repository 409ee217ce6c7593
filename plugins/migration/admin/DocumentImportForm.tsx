import { Alert, Button, Checkbox, Group, List, Select, Stack, Text } from '@mantine/core';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, QueryState, showSaveError, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { type DocumentImport, STAGED_KEY, type Source } from './model.ts';

function Result({ result }: { result: DocumentImport }) {
  const { counts } = result;
  return (
    <Alert color={counts.failed ? 'orange' : 'green'} title="Documents imported" role="status">
      <Stack gap="xs">
        <Text size="sm">
          Created {counts.created}, updated {counts.updated}, skipped {counts.skipped}, failed {counts.failed}.
        </Text>
        {result.failed.length > 0 && (
          <List size="sm" aria-label="Failed documents">
            {result.failed.map((f) => (
              <List.Item key={f.sourceId}>
                Document {f.sourceId}: {f.reason}
              </List.Item>
            ))}
          </List>
        )}
        {result.warnings.length > 0 && (
          <List size="sm" aria-label="Document warnings">
            {result.warnings.slice(0, 50).map((w) => (
              <List.Item key={w}>{w}</List.Item>
            ))}
          </List>
        )}
      </Stack>
    </Alert>
  );
}

/** Which website and locale the documents go into, and whether they are staged for review first. */
export function DocumentImportForm(props: { source: Source; websiteId: string; onWebsite: (id: string) => void }) {
  const can = useCan();
  const client = useQueryClient();
  const [locale, setLocale] = useState<string | null>(null);
  const [staging, setStaging] = useState(true);
  const websites = useQuery({
    queryKey: ['migration', 'websites'],
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
  });
  const run = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/migration-sources/{id}/import-documents', {
          params: { path: { id: props.source.id } },
          body: { websiteId: props.websiteId, ...(locale ? { locale } : {}), staging },
        }),
      ),
    onSuccess: () => client.invalidateQueries({ queryKey: STAGED_KEY }),
    onError: (err) => showSaveError(err),
  });
  const mayImport = can('pages:edit') && can('snippets:edit');
  return (
    <QueryState query={websites}>
      {(sites) => {
        const site = sites.find((w) => w.id === props.websiteId);
        return (
          <Stack align="flex-start">
            <Group align="flex-end">
              <Select
                label="Website"
                placeholder="Choose a website"
                data={sites.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
                value={props.websiteId || null}
                onChange={(v) => {
                  setLocale(null);
                  props.onWebsite(v ?? '');
                }}
              />
              <Select
                label="Locale"
                placeholder={site ? `${site.locales[0]} (its first)` : 'Choose a website first'}
                data={site?.locales ?? []}
                value={locale}
                onChange={setLocale}
                disabled={!site}
                clearable
                clearButtonProps={{ 'aria-label': 'Clear locale' }}
              />
            </Group>
            {mayImport ? (
              <>
                <Checkbox
                  label="Stage the pages for review (not public until promoted)"
                  checked={staging}
                  onChange={(e) => setStaging(e.currentTarget.checked)}
                />
                <Button disabled={!site} loading={run.isPending} onClick={() => run.mutate()}>
                  Import documents
                </Button>
              </>
            ) : (
              <Text size="sm">Importing documents needs the permissions to edit pages and snippets.</Text>
            )}
            {run.data && <Result result={run.data} />}
          </Stack>
        );
      }}
    </QueryState>
  );
}
