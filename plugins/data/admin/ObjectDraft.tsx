import { Button, Group, List, Paper, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, showSaved, showSaveError, unwrap, useCan } from '../../admin-ui/app/src/sdk/index.ts';
import { type DataObject, keys } from './model.ts';

/**
 * A published object's working copy: the form shows it, the site and the public API show the live
 * version until someone who may publish publishes the changes (or anyone who may edit discards them).
 */
export function DraftPanel({ object }: { object: DataObject }) {
  const can = useCan();
  const client = useQueryClient();
  const [busy, setBusy] = useState<'publish' | 'discard'>();
  const diff = useQuery({
    queryKey: [...keys.object(object.id), 'draft-diff', object.draft?.updatedAt],
    queryFn: async () =>
      unwrap<unknown>(await api.GET('/data-objects/{id}/draft/diff', { params: { path: { id: object.id } } })) as {
        changed: string[];
      },
    enabled: object.draft !== undefined,
    retry: false,
  });
  if (!object.draft) return null;
  const mayPublish = can('objects:publish');
  const act = async (what: 'publish' | 'discard') => {
    setBusy(what);
    try {
      const path = { params: { path: { id: object.id } } };
      unwrap<unknown>(
        what === 'publish'
          ? await api.POST('/data-objects/{id}/publish-draft', path)
          : await api.DELETE('/data-objects/{id}/draft', path),
      );
      showSaved(what === 'publish' ? 'Changes published' : 'Changes discarded');
      await client.invalidateQueries({ queryKey: keys.objects });
    } catch (err) {
      showSaveError(err);
    } finally {
      setBusy(undefined);
    }
  };
  return (
    <Paper withBorder p="md" aria-label="Draft">
      <Stack gap="xs">
        <Title order={2} size="h5">
          Draft — live version differs
        </Title>
        <Text size="sm">
          Saved {new Date(object.draft.updatedAt).toLocaleString()}. The site and the public API show the live version
          until the changes are published.
        </Text>
        {diff.data && diff.data.changed.length > 0 && (
          <List size="sm" aria-label="Changed fields">
            {diff.data.changed.map((name) => (
              <List.Item key={name}>{name}</List.Item>
            ))}
          </List>
        )}
        <Group gap="xs">
          <Button size="xs" disabled={!mayPublish} loading={busy === 'publish'} onClick={() => void act('publish')}>
            Publish changes
          </Button>
          {can('data_objects:write') && (
            <Button size="xs" variant="default" loading={busy === 'discard'} onClick={() => void act('discard')}>
              Discard changes
            </Button>
          )}
        </Group>
        {!mayPublish && (
          <Text size="sm" c="dimmed">
            Publishing needs the objects:publish permission: ask someone who may publish to review these changes.
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
