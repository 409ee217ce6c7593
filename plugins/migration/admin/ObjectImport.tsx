import { Button, Checkbox, Stack, Text } from '@mantine/core';
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, Section, showSaveError, unwrap, useCan, useUrlState } from '../../admin-ui/app/src/sdk/index.ts';
import { JobProgress } from './JobProgress.tsx';
import type { Source } from './model.ts';
import { SourceFrame } from './SourceFrame.tsx';

function StartImport(props: { source: Source; onStarted: (jobId: string) => void }) {
  const can = useCan();
  const mayPublish = can('objects:publish');
  const [publish, setPublish] = useState(true);
  const start = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/migration-sources/{id}/import-objects', {
          params: { path: { id: props.source.id } },
          body: { background: true, ...(mayPublish ? { publish } : {}) },
        }),
      ),
    onSuccess: (answer) => props.onStarted(answer.jobId),
    onError: (err) => showSaveError(err),
  });
  if (!can('data_objects:write'))
    return <Text size="sm">Importing objects needs the permission to write data objects.</Text>;
  return (
    <Stack align="flex-start">
      <Text size="sm" c="dimmed">
        Reads every object of the imported classes in the background, in batches. A second run updates what the first
        wrote.
        {mayPublish ? '' : ' Your account may not publish: every object is imported as a draft.'}
      </Text>
      {mayPublish && (
        <Checkbox
          label="Keep Pimcore's published state (otherwise every object is a draft)"
          checked={publish}
          onChange={(e) => setPublish(e.currentTarget.checked)}
        />
      )}
      <Button loading={start.isPending} onClick={() => start.mutate()}>
        Import objects
      </Button>
    </Stack>
  );
}

/** `/admin/migration/:id/objects`: a background object import, followed in `?job=`. */
export default function ObjectImport() {
  const { values, set } = useUrlState(['job']);
  return (
    <SourceFrame step="objects">
      {(source) => (
        <Stack>
          <Section title="Import objects">
            <StartImport source={source} onStarted={(job) => set({ job })} />
          </Section>
          {values.job && <JobProgress key={values.job} jobId={values.job} />}
        </Stack>
      )}
    </SourceFrame>
  );
}
