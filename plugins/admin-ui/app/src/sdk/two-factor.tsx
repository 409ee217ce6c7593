import { Alert, Button, Code, CopyButton, Group, Image, List, Stack, TextInput } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { api, unwrap } from '../api/client';
import { signedInAs } from '../api/session-expiry';
import { ME_KEY, type Me } from '../shell/session';

/**
 * Enrolment in a second factor: QR code (and the secret to type), then a first code. With an
 * `enrollmentToken` (a sign-in whose role requires it) the answer signs the user in: `onEnrolled`
 * gets the user too.
 */
export function EnrolTwoFactor(props: { enrollmentToken?: string; onEnrolled: (codes: string[], user?: Me) => void }) {
  const [setup, setSetup] = useState<{ secret: string; qrCodeDataUrl: string }>();
  const [error, setError] = useState<string>();
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const client = useQueryClient();
  const { enrollmentToken, onEnrolled } = props;
  useEffect(() => {
    api
      .POST('/auth/mfa/setup', { body: enrollmentToken ? { enrollmentToken } : {} })
      .then((r) => setSetup(unwrap(r)))
      .catch((err) => setError(err instanceof Error ? err.message : 'The request failed'));
  }, [enrollmentToken]);
  const verify = async (value: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = unwrap(
        await api.POST('/auth/mfa/verify-setup', {
          body: { code: value, ...(enrollmentToken ? { enrollmentToken } : {}) },
        }),
      );
      if (answer.user) signedInAs(answer.user);
      onEnrolled(answer.recoveryCodes, answer.user);
      if (answer.user) client.setQueryData(ME_KEY, answer.user);
    } catch (err) {
      setError(err instanceof Error ? err.message : 'The request failed');
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Stack>
      {error && (
        <Alert color="red" role="alert">
          {error}
        </Alert>
      )}
      {setup && (
        <>
          <List type="ordered" size="sm" spacing={4}>
            <List.Item>Open an authenticator app (for example a password manager or an OTP app).</List.Item>
            <List.Item>Scan this QR code, or type the key below.</List.Item>
            <List.Item>Enter the six-digit code the app shows.</List.Item>
          </List>
          <Image
            src={setup.qrCodeDataUrl}
            alt="QR code to add this account to an authenticator app"
            w={180}
            h={180}
            mx="auto"
          />
          <Group gap="xs" justify="center" wrap="nowrap">
            <Code style={{ wordBreak: 'break-all' }}>{setup.secret}</Code>
            <CopyButton value={setup.secret}>
              {({ copied, copy }) => (
                <Button size="compact-xs" variant="light" onClick={copy}>
                  {copied ? 'Copied' : 'Copy key'}
                </Button>
              )}
            </CopyButton>
          </Group>
          <form
            noValidate
            // The code of an enrolment is no edit of a screen to guard (sdk/unsaved-changes.ts).
            data-unsaved-guard="off"
            onSubmit={(e) => {
              e.preventDefault();
              void verify(code);
            }}
          >
            <Stack>
              <TextInput
                label="Six-digit code"
                inputMode="numeric"
                autoComplete="one-time-code"
                maxLength={6}
                value={code}
                onChange={(e) => setCode(e.currentTarget.value.replace(/\D/g, ''))}
                required
              />
              <Button type="submit" loading={busy} disabled={code.length !== 6}>
                Turn on two-factor sign-in
              </Button>
            </Stack>
          </form>
        </>
      )}
    </Stack>
  );
}

/** The recovery codes, shown once after enrolment. */
export function RecoveryCodes({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  return (
    <Stack>
      <Alert color="yellow" title="Save these recovery codes now">
        Each code signs you in once if you lose your authenticator. They are not shown again.
      </Alert>
      <Code block aria-label="Recovery codes">
        {codes.join('\n')}
      </Code>
      <Group>
        <CopyButton value={codes.join('\n')}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy codes'}
            </Button>
          )}
        </CopyButton>
        <Button onClick={onDone}>I saved them, continue</Button>
      </Group>
    </Stack>
  );
}
