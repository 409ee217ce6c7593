import { Button, Group, Paper, Radio, Select, Stack, Tabs, Text } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { IconDownload } from '@tabler/icons-react';
import { useState } from 'react';
import {
  api,
  EmptyState,
  PageHeader,
  QueryState,
  unwrap,
  useCan,
  useUrlState,
} from '../../admin-ui/app/src/sdk/index.ts';
import { ImportPanel } from './ImportPanel.tsx';

function ExportPanel() {
  const url = useUrlState(['tab', 'website'] as const);
  const [objects, setObjects] = useState<'all' | 'referenced'>('all');
  const websites = useQuery({
    queryKey: ['bundles', 'websites'],
    queryFn: async () => unwrap(await api.GET('/cms-one/websites')),
  });
  return (
    <QueryState query={websites}>
      {(list) =>
        list.length === 0 ? (
          <EmptyState title="No website to export">Create a website first, or import a bundle.</EmptyState>
        ) : (
          <Paper withBorder p="lg">
            <Stack>
              <Select
                label="Website"
                placeholder="Choose a website"
                maw={420}
                data={list.map((w) => ({ value: w.id, label: `${w.name} (${w.rootPath})` }))}
                value={list.some((w) => w.id === url.values.website) ? url.values.website : null}
                onChange={(id) => url.set({ website: id ?? '' })}
                allowDeselect={false}
              />
              <Radio.Group
                label="Data objects"
                value={objects}
                onChange={(v) => setObjects(v === 'referenced' ? 'referenced' : 'all')}
              >
                <Stack gap="xs" mt="xs">
                  <Radio value="all" label="Every object of the classes the website uses" />
                  <Radio value="referenced" label="Only the objects its pages name" />
                </Stack>
              </Radio.Group>
              <Text size="sm" c="dimmed">
                The bundle is a .zip: bundle.json (pages, snippets, templates, themes, menus, settings, classes,
                objects) and the library files the website uses. It is streamed as it is made, however large.
              </Text>
              <Group>
                {list.some((w) => w.id === url.values.website) ? (
                  <Button
                    component="a"
                    href={`/cms-one/websites/${encodeURIComponent(url.values.website)}/export?dataObjects=${objects}`}
                    download
                    leftSection={<IconDownload size={16} aria-hidden />}
                  >
                    Download the bundle
                  </Button>
                ) : (
                  <Button disabled leftSection={<IconDownload size={16} aria-hidden />}>
                    Download the bundle
                  </Button>
                )}
              </Group>
            </Stack>
          </Paper>
        )
      }
    </QueryState>
  );
}

/**
 * `/admin/bundles?tab=export|import`: move a website between installations. Export downloads a
 * bundle; import reads one, shows the dry run's report and applies it in one transaction (which
 * rolls back whole when a record fails).
 */
export default function WebsiteBundles() {
  const can = useCan();
  const url = useUrlState(['tab'] as const);
  const mayExport = can('objects:read');
  const mayImport = can('objects:write');
  const tab = url.values.tab === 'import' && mayImport ? 'import' : mayExport ? 'export' : 'import';
  return (
    <Stack maw={1100}>
      <PageHeader
        title="Website bundles"
        description="Export a website with its content, data and files; import it into this installation."
      />
      <Tabs value={tab} onChange={(v) => url.set({ tab: v === 'import' ? 'import' : '' })} keepMounted={false}>
        <Tabs.List>
          {mayExport && <Tabs.Tab value="export">Export</Tabs.Tab>}
          {mayImport && <Tabs.Tab value="import">Import</Tabs.Tab>}
        </Tabs.List>
        <Tabs.Panel value="export" pt="md">
          <ExportPanel />
        </Tabs.Panel>
        <Tabs.Panel value="import" pt="md">
          <ImportPanel />
        </Tabs.Panel>
      </Tabs>
    </Stack>
  );
}
