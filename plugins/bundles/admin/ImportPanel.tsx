import { Alert, Anchor, Button, FileInput, Group, Paper, Stack, Text, Textarea } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconFileZip } from '@tabler/icons-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { ApiError, ErrorState, PathInput } from '../../admin-ui/app/src/sdk/index.ts';
import { AppliedSummary, DryRunReportView } from './Report.tsx';
import { type AppliedImport, type DryRunReport, type ImportInput, sendImport } from './model.ts';

/** The form's values; a file once one is chosen. */
type Draft = Omit<ImportInput, 'file'> & { file: File | null };

/** A failed apply: a rollback or a conflict says that nothing was imported, with the server's reason. */
function ApplyError({ error }: { error: unknown }) {
  if (error instanceof ApiError && (error.code === 'IMPORT_ROLLED_BACK' || error.code === 'IMPORT_CONFLICT'))
    return (
      <Alert
        color="red"
        role="alert"
        title={error.code === 'IMPORT_ROLLED_BACK' ? 'Rolled back: nothing was imported' : 'Not imported: conflicts'}
      >
        {error.message}
      </Alert>
    );
  return <ErrorState error={error} />;
}

/** Import: choose a bundle, read the dry run's report, apply it. */
export function ImportPanel() {
  const client = useQueryClient();
  const [input, setInput] = useState<Draft>({ file: null, rootPath: '', assetMap: '' });
  const [report, setReport] = useState<{ report: DryRunReport }>();
  const [applied, setApplied] = useState<AppliedImport>();
  const [error, setError] = useState<{ at: 'dry' | 'apply'; error: unknown }>();
  const [busy, setBusy] = useState<'dry' | 'apply'>();
  const change = (patch: Partial<Draft>) => {
    setInput((current) => ({ ...current, ...patch }));
    setReport(undefined);
    setApplied(undefined);
    setError(undefined);
  };
  const conflicts = report
    ? [...report.report.classActions, ...report.report.actions, ...report.report.assetPlan].filter(
        (a) => a.action === 'conflict',
      ).length
    : 0;

  const dryRun = async (file: File) => {
    setBusy('dry');
    setError(undefined);
    setApplied(undefined);
    try {
      setReport({ report: await sendImport<DryRunReport>({ ...input, file }, true) });
    } catch (err) {
      setReport(undefined);
      setError({ at: 'dry', error: err });
    } finally {
      setBusy(undefined);
    }
  };
  const apply = async (file: File) => {
    setBusy('apply');
    setError(undefined);
    try {
      setApplied(await sendImport<AppliedImport>({ ...input, file }, false));
      setReport(undefined);
      await client.invalidateQueries({ queryKey: ['bundles'] });
      await client.invalidateQueries({ queryKey: ['content'] });
    } catch (err) {
      setError({ at: 'apply', error: err });
    } finally {
      setBusy(undefined);
    }
  };

  return (
    <Stack>
      <Paper withBorder p="lg">
        <form
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (input.file) void dryRun(input.file);
          }}
        >
          <Stack>
            <FileInput
              label="Bundle"
              description="A .zip made by an export (manifest version 1 or 2), or a plain .json manifest"
              accept=".zip,.json,application/zip,application/json"
              leftSection={<IconFileZip size={16} aria-hidden />}
              value={input.file}
              onChange={(file) => change({ file })}
              clearable
              clearButtonProps={{ 'aria-label': 'Remove the file' }}
              required
            />
            <PathInput
              label="Root path"
              description="Empty: the bundle's own; another one (e.g. /shop-copy) imports it beside an existing website"
              maw={420}
              value={input.rootPath}
              onChange={(rootPath) => change({ rootPath })}
            />
            <Textarea
              label="Asset map (JSON, optional)"
              description='Files already in this library to use instead of the bundle&apos;s: { "<bundle asset id>": { "id": "<asset id here>", "pimcorePath": "<path here>" } }'
              autosize
              minRows={2}
              value={input.assetMap}
              onChange={(e) => change({ assetMap: e.currentTarget.value })}
            />
            <Group>
              <Button
                type="submit"
                variant={report ? 'default' : 'filled'}
                loading={busy === 'dry'}
                disabled={!input.file}
              >
                {report ? 'Run the dry run again' : 'Dry run: what would change'}
              </Button>
            </Group>
          </Stack>
        </form>
      </Paper>
      {error?.at === 'dry' && <ErrorState error={error.error} />}
      {report && (
        <Paper withBorder p="lg" component="section" aria-labelledby="bundle-report-title">
          <Stack>
            <DryRunReportView report={report.report} />
            {error?.at === 'apply' && <ApplyError error={error.error} />}
            <Group>
              <Button
                onClick={() => input.file && void apply(input.file)}
                loading={busy === 'apply'}
                disabled={conflicts > 0}
              >
                {conflicts > 0
                  ? `${conflicts} conflict${conflicts === 1 ? '' : 's'}: cannot apply`
                  : `Apply: import ${report.report.website.name}`}
              </Button>
            </Group>
          </Stack>
        </Paper>
      )}
      {applied && (
        <Paper withBorder p="lg" component="section">
          <AppliedSummary applied={applied} />
          <Text size="sm" mt="sm">
            <Anchor component={Link} to="/admin/websites">
              Open the websites
            </Anchor>
          </Text>
        </Paper>
      )}
    </Stack>
  );
}
