import { Badge, Button, Modal } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconPlus } from '@tabler/icons-react';
import { useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { api, ListPage, PageHeader, pageInBrowser, showSaved, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { SOURCES_KEY, type Source, sourcePath } from './model.ts';
import { SourceForm } from './SourceForm.tsx';

/** `/admin/migration`: the installations to move in, and a new one. */
export default function SourceList() {
  const navigate = useNavigate();
  const client = useQueryClient();
  const [creating, setCreating] = useState(false);
  return (
    <>
      <PageHeader
        title="Migration sources"
        description="Pimcore installations to move in: their classes, objects, documents and assets."
        actions={
          <Button leftSection={<IconPlus size={16} aria-hidden />} onClick={() => setCreating(true)}>
            New source
          </Button>
        }
      />
      <Modal
        closeButtonProps={{ 'aria-label': 'Close' }}
        opened={creating}
        onClose={() => setCreating(false)}
        title="New migration source"
        size="lg"
      >
        <SourceForm
          submitLabel="Create source"
          onCancel={() => setCreating(false)}
          onSubmit={async (body) => {
            const source = unwrap(await api.POST('/migration-sources', { body }));
            setCreating(false);
            showSaved(`Source ${source.name} created`);
            await client.invalidateQueries({ queryKey: SOURCES_KEY });
            await navigate(sourcePath(source.id));
          }}
        />
      </Modal>
      <ListPage<Source>
        label="Migration sources"
        queryKey={SOURCES_KEY}
        rowKey="id"
        defaultSort={{ column: 'name', direction: 'asc' }}
        filters={[{ name: 'q', label: 'Name contains', type: 'text' }]}
        empty={{ title: 'No migration sources yet' }}
        fetchPage={async (query) => {
          const { sources } = unwrap(await api.GET('/migration-sources'));
          return pageInBrowser(sources, query, { text: ['name'] });
        }}
        onRowClick={(s) => navigate(sourcePath(s.id))}
        columns={[
          {
            accessor: 'name',
            sortable: true,
            render: (s) => (
              <Link to={sourcePath(s.id)} onClick={(e) => e.stopPropagation()}>
                {s.name}
              </Link>
            ),
          },
          { accessor: 'kind', render: () => 'Pimcore 11' },
          {
            accessor: 'connection',
            title: 'Database',
            render: (s) => `${s.connection.user}@${s.connection.host}:${s.connection.port}/${s.connection.database}`,
          },
          {
            accessor: 'passwordSet',
            title: 'Password',
            render: (s) => (
              <Badge variant="light" color={s.passwordSet ? 'green' : 'gray'}>
                {s.passwordSet ? 'password set' : 'no password'}
              </Badge>
            ),
          },
          {
            accessor: 'createdAt',
            title: 'Created',
            sortable: true,
            render: (s) => new Date(s.createdAt).toLocaleDateString(),
          },
        ]}
      />
    </>
  );
}
