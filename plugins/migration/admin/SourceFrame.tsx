import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useParams } from 'react-router';
import { api, RecordPage, SectionLinks, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { SOURCES_KEY, type Source, sourceKey, sourcePath } from './model.ts';

/**
 * The frame of a source's screens (`/admin/migration/:id/...`): the source's name as the `h1`, the link
 * back to the list, and the steps of a migration as sections of their own.
 */
export function SourceFrame(props: { step: string; withDelete?: boolean; children: (source: Source) => ReactNode }) {
  const { id = '' } = useParams();
  const query = useQuery({
    queryKey: sourceKey(id),
    queryFn: async () => unwrap(await api.GET('/migration-sources/{id}', { params: { path: { id } } })),
  });
  const base = sourcePath(id);
  return (
    <RecordPage
      query={query}
      title={(s) => `${s.name}: ${props.step}`}
      back={{ to: '/admin/migration', label: 'All migration sources' }}
      description={(s) => `Pimcore 11 at ${s.connection.host}:${s.connection.port}. `}
      remove={
        props.withDelete
          ? {
              label: 'Delete source',
              confirm: (s) => ({
                title: `Delete the source ${s.name}?`,
                removes: `the source ${s.name} and its stored password. What was imported from it stays.`,
                confirmLabel: 'Delete source',
              }),
              run: async (s) => unwrap(await api.DELETE('/migration-sources/{id}', { params: { path: { id: s.id } } })),
              saved: (s) => `Source ${s.name} deleted`,
              invalidate: SOURCES_KEY,
              goTo: '/admin/migration',
            }
          : undefined
      }
    >
      {(source) => (
        <>
          <SectionLinks
            label="Migration steps"
            links={[
              { to: base, label: 'Connection', exact: true },
              { to: `${base}/classes`, label: 'Classes' },
              { to: `${base}/objects`, label: 'Objects' },
              { to: `${base}/documents`, label: 'Documents' },
            ]}
          />
          {props.children(source)}
        </>
      )}
    </RecordPage>
  );
}
