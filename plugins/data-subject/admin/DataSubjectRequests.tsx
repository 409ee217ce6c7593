import { Alert, Button, Group, NumberInput, Paper, Stack, Switch, TagsInput, TextInput, Title } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery } from '@tanstack/react-query';
import { IconDownload, IconSearch } from '@tabler/icons-react';
import { useState } from 'react';
import {
  api,
  ErrorState,
  LoadingState,
  PageHeader,
  showSaveError,
  unwrap,
  useCan,
} from '../../admin-ui/app/src/sdk/index.ts';
import { EraseSection } from './EraseSection.tsx';
import { Findings } from './Findings.tsx';
import { count, downloadExport, type SearchAnswer, type Subject, search } from './model.ts';

/** Class names for the class filter's suggestions, when the user may read classes. */
function useClassNames(enabled: boolean) {
  return useQuery({
    queryKey: ['data-subject', 'class-names'],
    enabled,
    queryFn: async () =>
      (unwrap<unknown>(await api.GET('/data-classes')) as { classes: { name: string }[] }).classes.map((c) => c.name),
  });
}

function SearchForm({ busy, onSearch }: { busy: boolean; onSearch: (s: Subject) => void }) {
  const can = useCan();
  const classNames = useClassNames(can('objects:read'));
  const form = useForm({
    initialValues: { identifier: '', classes: [] as string[], lookInsideText: false, limit: 100 as number | string },
    validate: { identifier: (v) => (v.trim() ? null : 'Enter the e-mail address or other value to look for') },
  });
  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="ds-search-title">
      <form
        noValidate
        onSubmit={form.onSubmit((v) =>
          onSearch({
            identifier: v.identifier.trim(),
            options: {
              ...(v.classes.length ? { classes: v.classes } : {}),
              ...(v.lookInsideText ? { lookInsideText: true } : {}),
              limit: Number(v.limit) || 100,
            },
          }),
        )}
      >
        <Stack>
          <Title order={2} size="h4" id="ds-search-title">
            Who is asking
          </Title>
          <TextInput
            label="Identifier"
            description="A whole value, usually an e-mail address; compared without case. Part of a value does not match."
            required
            maxLength={320}
            autoComplete="off"
            {...form.getInputProps('identifier')}
          />
          <TagsInput
            label="Only objects of these classes"
            description="Empty: every class"
            data={classNames.data ?? []}
            clearable
            {...form.getInputProps('classes')}
          />
          <Switch
            label="Mail log: also look inside subjects and texts (not only recipients)"
            {...form.getInputProps('lookInsideText', { type: 'checkbox' })}
          />
          <NumberInput
            label="Records listed per kind"
            description="The counts are always complete"
            min={1}
            max={1000}
            maw={240}
            {...form.getInputProps('limit')}
          />
          <Group>
            <Button type="submit" loading={busy} leftSection={<IconSearch size={16} aria-hidden />}>
              Search
            </Button>
          </Group>
        </Stack>
      </form>
    </Paper>
  );
}

/**
 * `/admin/data-subject`: search what the installation holds about a person, download it, erase it
 * (a dry run first, then a confirmation naming the counts; a kept record can be finished by running
 * again). The identifier never goes into the URL: it is personal data and would stay in the
 * browser's history; every search also costs one of the administrator's scans a minute.
 */
export default function DataSubjectRequests() {
  const [subject, setSubject] = useState<Subject>();
  const [answer, setAnswer] = useState<SearchAnswer>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<string>();

  const run = async (s: Subject) => {
    setBusy(true);
    setError(undefined);
    setExported(undefined);
    try {
      const found = await search(s);
      setSubject(s);
      setAnswer(found);
    } catch (err) {
      setError(err);
      setAnswer(undefined);
    } finally {
      setBusy(false);
    }
  };
  const total = answer ? Object.values(answer.counts).reduce((a, b) => a + b, 0) : 0;

  return (
    <Stack maw={1100}>
      <PageHeader
        title="Data-subject requests"
        description="What this installation holds about a person: find it, hand it over, erase it."
      />
      <SearchForm busy={busy} onSearch={(s) => void run(s)} />
      {busy && !answer && <LoadingState label="Searching every source" />}
      {error !== undefined && <ErrorState error={error} onRetry={subject ? () => void run(subject) : undefined} />}
      {answer && subject && (
        <Stack>
          <Group justify="space-between" align="center">
            <Title order={2} size="h3">
              {total === 0
                ? `Nothing found for ${subject.identifier}`
                : `${count(total, 'record')} found for ${subject.identifier}`}
            </Title>
            <Button
              variant="light"
              leftSection={<IconDownload size={16} aria-hidden />}
              loading={exporting}
              onClick={async () => {
                setExporting(true);
                try {
                  setExported(await downloadExport(subject));
                } catch (err) {
                  showSaveError(err);
                } finally {
                  setExporting(false);
                }
              }}
            >
              Download the export (JSON)
            </Button>
          </Group>
          {exported && (
            <Alert color="green" role="status">
              Export downloaded as {exported}. It is not kept on the server.
            </Alert>
          )}
          <Findings answer={answer} />
          <EraseSection key={JSON.stringify(subject)} subject={subject} onErased={() => void run(subject)} />
        </Stack>
      )}
    </Stack>
  );
}
