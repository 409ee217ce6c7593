import { useQueryClient } from '@tanstack/react-query';
import { api, Section, showSaved, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { ConnectionTest } from './ConnectionTest.tsx';
import { SOURCES_KEY, sourceKey } from './model.ts';
import { SourceFrame } from './SourceFrame.tsx';
import { SourceForm } from './SourceForm.tsx';

/** `/admin/migration/:id`: the source's connection, its test, and deleting it. */
export default function SourceSettings() {
  const client = useQueryClient();
  return (
    <SourceFrame step="connection" withDelete>
      {(source) => (
        <>
          <ConnectionTest source={source} />
          <Section title="Settings">
            <SourceForm
              key={source.updatedAt}
              source={source}
              submitLabel="Save changes"
              onSubmit={async ({ kind: _kind, ...body }) => {
                unwrap(await api.PATCH('/migration-sources/{id}', { params: { path: { id: source.id } }, body }));
                showSaved(`Source ${body.name} saved`);
                await client.invalidateQueries({ queryKey: SOURCES_KEY });
                await client.invalidateQueries({ queryKey: sourceKey(source.id) });
              }}
            />
          </Section>
        </>
      )}
    </SourceFrame>
  );
}
