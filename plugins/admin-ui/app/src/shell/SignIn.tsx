import { Alert, Anchor, Button, Divider, Group, PasswordInput, PinInput, Stack, Text, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { EnrolTwoFactor, RecoveryCodes } from '../sdk/two-factor';
import { AuthFrame } from './AuthFrame';
import { ME_KEY, useMe } from './session';

type Step =
  | { kind: 'password' }
  | { kind: 'challenge'; mfaToken: string }
  | { kind: 'enrol'; enrollmentToken: string }
  | { kind: 'recovery-codes'; codes: string[] };

/**
 * Only a path of this dashboard or of the page editor (`/cms-one/editor/...`): `?next=https://evil.example`
 * must not send a user away. Dot segments (`/cms-one/editor/../../x`, plain or percent-encoded) and
 * backslashes are refused too: the browser would resolve them to another path of this site.
 */
function safeNext(next: string | null): string {
  if (!next || !/^\/(admin|cms-one\/editor)(\/|$|\?)/.test(next)) return '/admin';
  const path = next.split(/[?#]/)[0];
  if (/\\|%5c/i.test(path) || /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(path)) return '/admin';
  return next;
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : 'Sign-in failed';
}

function PasswordStep({ onStep }: { onStep: (s: Step) => void }) {
  const [error, setError] = useState<string>();
  const client = useQueryClient();
  const form = useForm({
    initialValues: { email: '', password: '' },
    validate: {
      email: (v) => (v.trim() ? null : 'Enter your e-mail address'),
      password: (v) => (v ? null : 'Enter your password'),
    },
  });
  return (
    <form
      noValidate
      onSubmit={form.onSubmit(async (values) => {
        setError(undefined);
        try {
          const answer = unwrap(
            await api.POST('/auth/login', { body: { email: values.email.trim(), password: values.password } }),
          );
          if ('mfaRequired' in answer) onStep({ kind: 'challenge', mfaToken: answer.mfaToken });
          else if ('mfaEnrollmentRequired' in answer)
            onStep({ kind: 'enrol', enrollmentToken: answer.enrollmentToken });
          else client.setQueryData(ME_KEY, answer.user);
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
        <PasswordInput label="Password" autoComplete="current-password" required {...form.getInputProps('password')} />
        <Button type="submit" loading={form.submitting}>
          Sign in
        </Button>
        <Anchor component={Link} to="/forgot-password" size="sm">
          Forgot your password?
        </Anchor>
      </Stack>
    </form>
  );
}

function ChallengeStep({ mfaToken, onRestart }: { mfaToken: string; onRestart: () => void }) {
  const [useRecovery, setUseRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const client = useQueryClient();
  const submit = async (value: string) => {
    setBusy(true);
    setError(undefined);
    try {
      const answer = unwrap(await api.POST('/auth/mfa/challenge', { body: { mfaToken, code: value.trim() } }));
      client.setQueryData(ME_KEY, answer.user);
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
          <Anchor component="button" type="button" size="sm" onClick={onRestart}>
            Start again
          </Anchor>
        </Group>
      </Stack>
    </form>
  );
}

/** What the sign-in page offers besides the password (`GET /auth/oidc`); nothing when it cannot be read. */
function useSingleSignOn() {
  return useQuery({
    queryKey: ['admin-ui', 'sso'],
    queryFn: async () => unwrap(await api.GET('/auth/oidc')),
    staleTime: 60_000,
    retry: false,
  });
}

/**
 * The provider's button above the password form, and the password form only where `localLogin`
 * keeps it: all of it for `all`, with a note for `admins` (break-glass), none for `none`.
 */
function FirstStep({ next, onStep }: { next: string; onStep: (s: Step) => void }) {
  const sso = useSingleSignOn();
  if (sso.isPending) return null;
  const on = sso.data?.enabled === true;
  if (!on || !sso.data) return <PasswordStep onStep={onStep} />;
  const start = `${sso.data.startUrl}?${new URLSearchParams({ returnTo: next })}`;
  return (
    <Stack>
      <Button component="a" href={start} size="md">
        {sso.data.buttonLabel}
      </Button>
      {sso.data.localLogin === 'none' ? (
        <Text size="sm" c="dimmed" ta="center">
          Password sign-in is off for this installation.
        </Text>
      ) : (
        <>
          <Divider
            label={sso.data.localLogin === 'admins' ? 'or, for administrators, with a password' : 'or with a password'}
            labelPosition="center"
          />
          <PasswordStep onStep={onStep} />
        </>
      )}
    </Stack>
  );
}

const TITLES: Record<Step['kind'], { title: string; intro?: string }> = {
  password: { title: 'Sign in' },
  challenge: { title: 'Two-factor sign-in', intro: 'Your account is protected by a second factor.' },
  enrol: {
    title: 'Set up two-factor sign-in',
    intro: 'Your role requires a second factor. Set it up now to finish signing in.',
  },
  'recovery-codes': { title: 'Two-factor sign-in is on' },
};

/** `/sign-in`: password, then the second factor or its mandatory enrolment, then back where the user was. */
export function SignIn() {
  const [step, setStep] = useState<Step>({ kind: 'password' });
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const me = useMe();
  const next = safeNext(params.get('next'));
  // Signed in (now, or already): go on, except while the new recovery codes are on screen.
  useEffect(() => {
    if (me.data && step.kind !== 'recovery-codes') {
      // The page editor is an application of its own: a page load, not a route of this one.
      if (next.startsWith('/cms-one/')) window.location.replace(next);
      else void navigate(next, { replace: true });
    }
  }, [me.data, step.kind, next, navigate]);
  const { title, intro } = TITLES[step.kind];
  return (
    <AuthFrame title={title} intro={intro}>
      {step.kind === 'password' && <FirstStep next={next} onStep={setStep} />}
      {step.kind === 'challenge' && (
        <ChallengeStep mfaToken={step.mfaToken} onRestart={() => setStep({ kind: 'password' })} />
      )}
      {step.kind === 'enrol' && (
        <EnrolTwoFactor
          enrollmentToken={step.enrollmentToken}
          onEnrolled={(codes) => setStep({ kind: 'recovery-codes', codes })}
        />
      )}
      {step.kind === 'recovery-codes' && (
        <RecoveryCodes codes={step.codes} onDone={() => navigate(next, { replace: true })} />
      )}
    </AuthFrame>
  );
}
