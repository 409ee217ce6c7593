import { Anchor, Button, Divider, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { api, unwrap } from '../api/client';
import { ChallengeStep, PasswordStep, type SignInStep as Step } from '../sdk/sign-in-steps';
import { EnrolTwoFactor, RecoveryCodes } from '../sdk/two-factor';
import { AuthFrame } from './AuthFrame';
import { ME_KEY, type Me, useMe } from './session';

/** The password form of the sign-in page, with the link to a password reset. */
function PagePasswordStep({ onStep }: { onStep: (s: Step) => void }) {
  const client = useQueryClient();
  return (
    <PasswordStep
      onStep={onStep}
      onSignedIn={(user: Me) => client.setQueryData(ME_KEY, user)}
      below={
        <Anchor component={Link} to="/forgot-password" size="sm">
          Forgot your password?
        </Anchor>
      }
    />
  );
}

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
  if (!on || !sso.data) return <PagePasswordStep onStep={onStep} />;
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
          <PagePasswordStep onStep={onStep} />
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
  const client = useQueryClient();
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
        <ChallengeStep
          mfaToken={step.mfaToken}
          onRestart={() => setStep({ kind: 'password' })}
          onSignedIn={(user) => client.setQueryData(ME_KEY, user)}
        />
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
