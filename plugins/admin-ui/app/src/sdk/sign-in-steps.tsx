import { Alert, Anchor, Button, Group, PasswordInput, PinInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { type ReactNode, useState } from 'react';
import { api, unwrap } from '../api/client';
import { signedInAs } from '../api/session-expiry';
import type { Me } from '../shell/session';

/** Where a sign-in stands: the password, the second factor, its mandatory enrolment, the new recovery codes. */
export type SignInStep =
  | { kind: 'password' }
  | { kind: 'challenge'; mfaToken: string }
  | { kind: 'enrol'; enrollmentToken: string }
  | { kind: 'recovery-codes'; codes: string[]; user?: Me };

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : 'Sign-in failed';
}

/** A sign-in's own forms are no edit of a screen: the unsaved-changes guard leaves them out. */
const NOT_GUARDED = { 'data-unsaved-guard': 'off' };

/**
 * E-mail and password (`POST /auth/login`); then `onStep` with the second factor or its enrolment,
 * or `onSignedIn` with the user. `below` goes under the button (the sign-in page's "Forgot your password?").
 */
export function PasswordStep(props: {
  onStep: (s: SignInStep) => void;
  onSignedIn: (user: Me) => void;
  email?: string;
  below?: ReactNode;
}) {
  const [error, setError] = useState<string>();
  const form = useForm({
    initialValues: { email: props.email ?? '', password: '' },
    validate: {
      email: (v) => (v.trim() ? null : 'Enter your e-mail address'),
      password: (v) => (v ? null : 'Enter your password'),
    },
  });
  return (
    <form
      noValidate
      {...NOT_GUARDED}
      onSubmit={form.onSubmit(async (values) => {
        setError(undefined);
        try {
          const answer = unwrap(
            await api.POST('/auth/login', { body: { email: values.email.trim(), password: values.password } }),
          );
          if ('mfaRequired' in answer) props.onStep({ kind: 'challenge', mfaToken: answer.mfaToken });
          else if ('mfaEnrollmentRequired' in answer)
            props.onStep({ kind: 'enrol', enrollmentToken: answer.enrollmentToken });
          else signedIn(props.onSignedIn, answer.user);
        } catch (err) {
          setError(errorText(err));
        }
      })}
    >
      <Stack>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        <TextInput label="E-mail" type="email" autoComplete="username" required {...form.getInputProps('email')} />
        <PasswordInput
          label="Password"
          autoComplete="current-password"
          required
          // Signing in again: the e-mail is filled in, the password is what to type.
          data-autofocus={props.email ? true : undefined}
          {...form.getInputProps('password')}
        />
        <Button type="submit" loading={form.submitting}>
          Sign in
        </Button>
        {props.below}
      </Stack>
    </form>
  );
}

function signedIn(onSignedIn: (user: Me) => void, user: Me) {
  signedInAs(user);
  onSignedIn(user);
}

/** The second factor: a code of the authenticator app, or a recovery code (`POST /auth/mfa/challenge`). */
export function ChallengeStep(props: { mfaToken: string; onRestart: () => void; onSignedIn: (user: Me) => void }) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (value: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = unwrap(
        await api.POST('/auth/mfa/challenge', { body: { mfaToken: props.mfaToken, code: value.trim() } }),
      );
      signedIn(props.onSignedIn, answer.user);
    } catch (err) {
      setError(errorText(err));
      setCode('');
    } finally {
      setBusy(false);
    }
  };
  return (
    <form
      noValidate
      {...NOT_GUARDED}
      onSubmit={(e) => {
        e.preventDefault();
        void submit(code);
      }}
    >
      <Stack>
        {error && (
          <Alert color="red" role="alert">
            {error}
          </Alert>
        )}
        {useRecovery ? (
          <TextInput
            label="Recovery code"
            description="One of the codes you saved when you set up two-factor sign-in. Each works once."
            autoComplete="one-time-code"
            value={code}
            onChange={(e) => setCode(e.currentTarget.value)}
            required
          />
        ) : (
          <Stack gap={4}>
            <Text size="sm" fw={500} component="label" id="totp-label">
              Code from your authenticator app
            </Text>
            <PinInput
              length={6}
              type="number"
              oneTimeCode
              value={code}
              onChange={setCode}
              onComplete={(v) => void submit(v)}
              aria-labelledby="totp-label"
              getInputProps={(index) => ({ 'aria-label': `Digit ${index + 1} of 6` })}
            />
          </Stack>
        )}
        <Button type="submit" loading={busy} disabled={!code}>
          Verify
        </Button>
        <Group justify="space-between">
          <Anchor
            component="button"
            type="button"
            size="sm"
            onClick={() => {
              setUseRecovery(!useRecovery);
              setCode('');
            }}
          >
            {useRecovery ? 'Use the authenticator app' : 'Use a recovery code'}
          </Anchor>
          <Anchor component="button" type="button" size="sm" onClick={props.onRestart}>
            Start again
          </Anchor>
        </Group>
      </Stack>
    </form>
  );
}
