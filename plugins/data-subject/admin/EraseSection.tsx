import { Alert, Button, Group, List, Modal, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconTrash } from '@tabler/icons-react';
import { useState } from 'react';
import { ErrorState } from '../../admin-ui/app/src/sdk/index.ts';
import { count, type EraseAnswer, erase, kindLabel, type Subject } from './model.ts';

/** "3 files, 2 objects and 1 mail" from an erase answer's counts. */
function erasedText(erased: Record<string, number>): string {
  const names: Record<string, [string, string]> = {
    files: ['file', 'files'],
    objects: ['object', 'objects'],
    mails: ['mail', 'mails'],
  };
  const parts = Object.entries(erased)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => count(n, ...(names[kind] ?? [kind, kind])));
  if (parts.length === 0) return 'nothing';
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;
}

function Report({ answer }: { answer: EraseAnswer }) {
  const accounts = answer.reportedOnly.accounts ?? 0;
  return (
    <Stack gap="xs">
      <Alert
        color={answer.dryRun ? 'blue' : answer.complete ? 'green' : 'orange'}
        role="status"
        title={answer.dryRun ? 'Dry run: nothing was changed' : answer.complete ? 'Erased' : 'Erased in part'}
      >
        {answer.dryRun
          ? `A real erase would remove ${erasedText(answer.erased)}.`
          : `Removed ${erasedText(answer.erased)}.`}
        {accounts > 0 && ` ${count(accounts, 'staff account')} reported only: remove it under Users if it should go.`}
      </Alert>
      {answer.kept.length > 0 && (
        <Alert color="orange" title={`${count(answer.kept.length, 'record')} kept`} role="alert">
          <List size="sm">
            {answer.kept.map((k) => (
              <List.Item key={`${k.kind}:${k.id}`}>
                {kindLabel(k.kind)} {k.label}: {k.reason}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      {answer.reported.length > 0 && (
        <Alert color="gray" title={`${count(answer.reported.length, 'record')} found but left in place`}>
          <List size="sm">
            {answer.reported.map((r) => (
              <List.Item key={`${r.kind}:${r.id}`}>
                {kindLabel(r.kind)} {r.label}: {r.reason}
              </List.Item>
            ))}
          </List>
        </Alert>
      )}
      <Text size="sm" c="dimmed">
        Never touched by a data-subject request: {answer.notTouched.join(', ')}.
      </Text>
    </Stack>
  );
}

/**
 * The erase: a dry run first (what would go), then a dialog that names the counts and asks for the
 * identifier again; when records stay (a file the store could not delete) the answer lists them
 * and running the erase again finishes the job.
 */
export function EraseSection(props: { subject: Subject; onErased: () => void }) {
  const { subject } = props;
  const [dryRun, setDryRun] = useState<EraseAnswer>();
  const [result, setResult] = useState<EraseAnswer>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState<'dry' | 'real'>();
  const [confirming, setConfirming] = useState(false);
  const [typed, setTyped] = useState('');

  const call = async (real: boolean) => {
    setBusy(real ? 'real' : 'dry');
    setError(undefined);
    try {
      const answer = await erase(subject, real);
      if (real) {
        setResult(answer);
        setDryRun(undefined);
        setConfirming(false);
        props.onErased();
      } else setDryRun(answer);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(undefined);
    }
  };
  const wouldErase = dryRun ? Object.values(dryRun.erased).reduce((a, b) => a + b, 0) : 0;

  return (
    <Paper withBorder p="lg" component="section" aria-labelledby="ds-erase-title">
      <Stack>
        <Title order={2} size="h4" id="ds-erase-title">
          Erase
        </Title>
        <Text size="sm">
          Files go first; an object whose file could not be deleted stays, and running the erase again finishes the job.
        </Text>
        {error !== undefined && <ErrorState error={error} />}
        {result && <Report answer={result} />}
        {result && !result.complete && (
          <Group>
            <Button color="red" loading={busy === 'real'} onClick={() => void call(true)}>
              Run the erase again
            </Button>
          </Group>
        )}
        {dryRun && <Report answer={dryRun} />}
        <Group>
          <Button variant="default" loading={busy === 'dry'} onClick={() => void call(false)}>
            {dryRun ? 'Run the dry run again' : 'Dry run: what would be erased'}
          </Button>
          {dryRun && wouldErase > 0 && (
            <Button
              color="red"
              leftSection={<IconTrash size={16} aria-hidden />}
              onClick={() => {
                setTyped('');
                setConfirming(true);
              }}
            >
              Erase…
            </Button>
          )}
        </Group>
      </Stack>
      <Modal
        opened={confirming}
        onClose={() => setConfirming(false)}
        title={`Erase ${subject.identifier}`}
        closeButtonProps={{ 'aria-label': 'Cancel the erase' }}
      >
        {dryRun && (
          <form
            onSubmit={(e) => {
              e.preventDefault();
              if (typed.trim() === subject.identifier) void call(true);
            }}
          >
            <Stack>
              <Text size="sm">
                This removes {erasedText(dryRun.erased)} that hold {subject.identifier}. It cannot be undone; the audit
                log keeps a fingerprint of the request, not the identifier.
              </Text>
              <TextInput
                label="Type the identifier again to confirm"
                value={typed}
                autoComplete="off"
                onChange={(e) => setTyped(e.currentTarget.value)}
                data-autofocus
              />
              <Group justify="flex-end">
                <Button variant="default" onClick={() => setConfirming(false)}>
                  Cancel
                </Button>
                <Button
                  type="submit"
                  color="red"
                  loading={busy === 'real'}
                  disabled={typed.trim() !== subject.identifier}
                >
                  Erase {erasedText(dryRun.erased)}
                </Button>
              </Group>
            </Stack>
          </form>
        )}
      </Modal>
    </Paper>
  );
}
