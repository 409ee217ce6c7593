import { Alert, Badge, Box, List, SimpleGrid, Paper, Table, Text, Title, Stack } from '@mantine/core';
import type { AppliedImport, AssetPlanItem, DryRunReport, PlanAction } from './model.ts';

const COLOURS = { create: 'green', upload: 'green', reuse: 'blue', conflict: 'red' } as const;

/** Sections of the manifest by the names a person knows them by. */
const SECTION_LABELS: Record<string, string> = {
  pages: 'Pages',
  snippets: 'Snippets',
  websiteTemplates: 'Templates',
  websitePaths: 'Menu entries',
  themes: 'Themes',
  dataClasses: 'Classes',
  dataComponents: 'Components',
  dataObjects: 'Data objects',
  assets: 'Files',
};
const sectionLabel = (key: string) => SECTION_LABELS[key] ?? key;

function Counts({ counts, label }: { counts: Record<string, number>; label: string }) {
  const entries = Object.entries(counts);
  if (entries.length === 0) return null;
  return (
    <SimpleGrid cols={{ base: 2, sm: 4 }} aria-label={label} role="list">
      {entries.map(([key, n]) => (
        <Paper key={key} withBorder p="sm" role="listitem">
          <Text size="sm" c="dimmed">
            {sectionLabel(key)}
          </Text>
          <Text fw={600} size="lg">
            {n}
          </Text>
        </Paper>
      ))}
    </SimpleGrid>
  );
}

function ActionBadge({ action }: { action: keyof typeof COLOURS }) {
  return (
    <Badge color={COLOURS[action]} variant="light">
      {action}
    </Badge>
  );
}

function ActionTable({ label, actions }: { label: string; actions: PlanAction[] }) {
  if (actions.length === 0) return null;
  return (
    <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label={label}>
      <Table striped miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>Kind</Table.Th>
            <Table.Th>Name</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>Why</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {actions.map((a) => (
            <Table.Tr key={`${a.kind}:${a.name}`}>
              <Table.Td>{a.kind}</Table.Td>
              <Table.Td>{a.name}</Table.Td>
              <Table.Td>
                <ActionBadge action={a.action} />
              </Table.Td>
              <Table.Td>{a.reason ?? '—'}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

function AssetTable({ items }: { items: AssetPlanItem[] }) {
  if (items.length === 0) return null;
  return (
    <Box style={{ overflowX: 'auto' }} tabIndex={0} role="region" aria-label="Files">
      <Table striped miw={520}>
        <Table.Thead>
          <Table.Tr>
            <Table.Th>File in the bundle</Table.Th>
            <Table.Th>Action</Table.Th>
            <Table.Th>Library path here</Table.Th>
            <Table.Th>Note</Table.Th>
          </Table.Tr>
        </Table.Thead>
        <Table.Tbody>
          {items.map((a) => (
            <Table.Tr key={a.id}>
              <Table.Td>{a.path}</Table.Td>
              <Table.Td>
                <ActionBadge action={a.action} />
              </Table.Td>
              <Table.Td>{a.targetPath}</Table.Td>
              <Table.Td>{a.stored === false ? 'over the size limit: will not be stored' : (a.reason ?? '—')}</Table.Td>
            </Table.Tr>
          ))}
        </Table.Tbody>
      </Table>
    </Box>
  );
}

/** What an import would do, as the dry run reports it: nothing has been written yet. */
export function DryRunReportView({ report }: { report: DryRunReport }) {
  return (
    <Stack>
      <Title order={2} size="h4" id="bundle-report-title">
        Dry run: {report.website.name} at {report.website.rootPath}
      </Title>
      <Text size="sm" c="dimmed">
        Manifest version {report.version}. Nothing has been written yet.
      </Text>
      <Counts counts={report.counts} label="Records in the bundle" />
      {report.warnings.length > 0 && (
        <Alert color="yellow" title="Warnings" role="note">
          <List size="sm">
            {report.warnings.map((w) => (
              <List.Item key={w}>{w}</List.Item>
            ))}
          </List>
        </Alert>
      )}
      {report.docs && (
        <Text size="sm">
          Documentation folder: {report.docs.sourceFolder ?? '—'} → {report.docs.targetFolder ?? '—'}
        </Text>
      )}
      <ActionTable label="Classes and components" actions={report.classActions} />
      <ActionTable label="Website and other records" actions={report.actions} />
      <AssetTable items={report.assetPlan} />
    </Stack>
  );
}

/** The applied import: what was created, the files stored, reused or not stored. */
export function AppliedSummary({ applied }: { applied: AppliedImport }) {
  return (
    <Stack>
      <Alert color="green" role="status" title="Imported">
        The website is at {applied.rootPath}. {applied.assets.uploaded} file(s) stored, {applied.assets.reused} reused
        from the library.
      </Alert>
      <Counts counts={applied.created} label="Records created" />
      {applied.assets.notStored.length > 0 && (
        <Alert color="orange" title="Files not stored" role="note">
          <List size="sm">
            {applied.assets.notStored.map((n) => (
              <List.Item key={n.path}>
                {n.path}: {n.reason}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {applied.warnings.length > 0 && (
        <Alert color="yellow" title="Warnings" role="note">
          <List size="sm">
            {applied.warnings.map((w) => (
              <List.Item key={w}>{w}</List.Item>
            ))}
          </List>
        </Alert>
      )}
    </Stack>
  );
}
