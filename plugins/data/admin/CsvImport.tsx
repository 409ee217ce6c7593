import { Alert, Button, Checkbox, FileInput, Group, List, Modal, Progress, Stack, Table, Text } from '@mantine/core';
import { IconFileTypeCsv } from '@tabler/icons-react';
import { useState } from 'react';
import { type ApiAnswer, api, unwrap } from '../../admin-ui/app/src/sdk/index.ts';
import { chunks, type CsvPlan, parseCsv, planCsvImport } from './csv.ts';
import type { DataClass } from './model.ts';

/** What one `POST /data-objects/bulk` answers (and the import's total). */
type BulkAnswer = ApiAnswer<'/data-objects/bulk', 'post'>;

/**
 * Imports objects from a CSV file into a class: rows become drafts through `POST /data-objects/bulk`
 * (500 per call); rows the server refuses are listed with their row number and reason.
 */
export function CsvImport(props: { cls: DataClass; opened: boolean; onClose: () => void; onDone: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [plan, setPlan] = useState<CsvPlan>();
  const [update, setUpdate] = useState(false);
  const [progress, setProgress] = useState<number>();
  const [result, setResult] = useState<BulkAnswer>();
  const [error, setError] = useState<string>();
  const reset = () => {
    setFile(null);
    setPlan(undefined);
    setResult(undefined);
    setProgress(undefined);
    setError(undefined);
  };
  const read = async (f: File | null) => {
    reset();
    setFile(f);
    if (!f) return;
    try {
      setPlan(planCsvImport(props.cls, parseCsv(await f.text())));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  const run = async () => {
    if (!plan) return;
    const total: BulkAnswer = { created: [], updated: [], unchanged: [], rejected: [] };
    const parts = chunks(plan.rows);
    setProgress(0);
    try {
      for (const [n, part] of parts.entries()) {
        const answer = unwrap(
          await api.POST('/data-objects/bulk', {
            body: { classId: props.cls.id, objects: part, ...(update ? { onConflict: 'update' as const } : {}) },
          }),
        );
        total.created.push(...answer.created);
        total.updated.push(...answer.updated);
        total.unchanged.push(...answer.unchanged);
        // Row numbers of the file: header is row 1, and each call's indexes start at 0.
        total.rejected.push(...answer.rejected.map((r) => ({ ...r, index: r.index + n * 500 + 2 })));
        setProgress(((n + 1) / parts.length) * 100);
      }
    } catch (err) {
      setError((err as Error).message);
    }
    setResult(total);
    props.onDone();
  };
  return (
    <Modal
      opened={props.opened}
      onClose={() => {
        reset();
        props.onClose();
      }}
      title={`Import ${props.cls.label || props.cls.name} from CSV`}
      size="lg"
      closeButtonProps={{ 'aria-label': 'Close the import' }}
    >
      <Stack>
        <Text size="sm">
          The first row names the columns: field names of the class, plus <code>key</code> and <code>locale</code>.
          Lists are separated by <code>;</code> (or JSON), components and JSON fields are JSON. Imported objects are
          drafts.
        </Text>
        <FileInput
          label="CSV file"
          accept=".csv,text/csv"
          leftSection={<IconFileTypeCsv size={16} />}
          value={file}
          onChange={read}
          clearable
          clearButtonProps={{ 'aria-label': 'Clear the file' }}
        />
        {error && (
          <Alert color="red" role="alert" title="The import stopped">
            {error}
          </Alert>
        )}
        {plan && !result && (
          <>
            <Text size="sm">
              {plan.rows.length} rows; columns used: {plan.used.join(', ') || 'none'}
              {plan.ignored.length > 0 && `; ignored (no such field): ${plan.ignored.join(', ')}`}.
            </Text>
            {plan.problems.length > 0 && (
              <Alert color="orange" title="Cells left out">
                <List size="sm">
                  {plan.problems.slice(0, 10).map((p) => (
                    <List.Item key={p}>{p}</List.Item>
                  ))}
                </List>
              </Alert>
            )}
            <Checkbox
              label="Update objects whose key already exists (otherwise those rows are refused)"
              checked={update}
              onChange={(e) => setUpdate(e.currentTarget.checked)}
            />
            <Group>
              <Button onClick={run} disabled={plan.rows.length === 0} loading={progress !== undefined}>
                Import {plan.rows.length} rows
              </Button>
            </Group>
          </>
        )}
        {progress !== undefined && <Progress value={progress} aria-label="Import progress" />}
        {result && (
          <Stack gap="xs" role="status">
            <Text fw={600}>
              {result.created.length} created, {result.updated.length} updated, {result.unchanged.length} unchanged,{' '}
              {result.rejected.length} refused.
            </Text>
            {result.rejected.length > 0 && (
              <Table aria-label="Refused rows">
                <Table.Thead>
                  <Table.Tr>
                    <Table.Th>Row</Table.Th>
                    <Table.Th>Field</Table.Th>
                    <Table.Th>Reason</Table.Th>
                  </Table.Tr>
                </Table.Thead>
                <Table.Tbody>
                  {result.rejected.slice(0, 100).map((r) => (
                    <Table.Tr key={`${r.index}-${r.field}`}>
                      <Table.Td>{r.index}</Table.Td>
                      <Table.Td>{r.field ?? ''}</Table.Td>
                      <Table.Td>{r.reason}</Table.Td>
                    </Table.Tr>
                  ))}
                </Table.Tbody>
              </Table>
            )}
          </Stack>
        )}
      </Stack>
    </Modal>
  );
}
