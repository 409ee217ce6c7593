import { Button, Modal, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { useState, useSyncExternalStore } from 'react';
import { finishSignIn, sessionState, signInAsFirstUser, subscribeSession } from '../api/session-expiry';
import { ME_KEY, type Me } from '../shell/session';
import { ChallengeStep, PasswordStep, type SignInStep } from './sign-in-steps';
import { EnrolTwoFactor, RecoveryCodes } from './two-factor';
import { discardUnsavedChanges } from './unsaved-changes';

const TITLES: Record<SignInStep['kind'], string> = {
  password: 'Your session has ended',
  challenge: 'Two-factor sign-in',
  enrol: 'Set up two-factor sign-in',
  'recovery-codes': 'Two-factor sign-in is on',
};

/**
 * The sign-in dialog over the screen when the session ends (`api/session-expiry.ts`): the screen
 * stays as it is underneath, unsaved edits included, and the requests the API refused are sent again
 * once the same user has signed in (with the second factor, or its enrolment, when the role needs
 * it). Both browser apps mount it once.
 */
export function SessionDialog() {
  const state = useSyncExternalStore(subscribeSession, sessionState);
  const [step, setStep] = useState<SignInStep>({ kind: 'password' });
  const client = useQueryClient();
  const done = (user: Me) => {
    setStep({ kind: 'password' });
    if (state.status === 'expired' && user.id === state.user.id) client.setQueryData(ME_KEY, user);
    finishSignIn(user);
  };
  if (state.status === 'active') return null;
  if (state.status === 'other-user')
    return (
      <Modal
        opened
        onClose={() => undefined}
        withCloseButton={false}
        closeOnEscape={false}
        closeOnClickOutside={false}
        title="Signed in as someone else"
      >
        <Stack>
          <Text size="sm">
            You are now signed in as {state.signedIn.email}, but the work on this screen was done as {state.user.email}.
            It is not saved under another person's name. Reload to go on as {state.signedIn.email} (the changes not
            saved before the session ended are discarded), or sign in as {state.user.email} to save them.
          </Text>
          <Button
            color="red"
            onClick={() => {
              discardUnsavedChanges({ reloading: true });
              window.location.reload();
            }}
          >
            Reload and discard the unsaved changes
          </Button>
          <Button variant="default" onClick={signInAsFirstUser}>
            Sign in as {state.user.email} instead
          </Button>
        </Stack>
      </Modal>
    );
  return (
    <Modal
      opened
      onClose={() => undefined}
      withCloseButton={false}
      closeOnEscape={false}
      closeOnClickOutside={false}
      title={TITLES[step.kind]}
    >
      {step.kind === 'password' && (
        <Stack>
          <Text size="sm">
            Sign in again to go on. Nothing is lost: your unsaved changes stay on the screen, and what was being saved
            is sent once you are signed in.
          </Text>
          <PasswordStep email={state.user.email} onStep={setStep} onSignedIn={done} />
        </Stack>
      )}
      {step.kind === 'challenge' && (
        <Stack>
          <Text size="sm">Your account is protected by a second factor.</Text>
          <ChallengeStep mfaToken={step.mfaToken} onRestart={() => setStep({ kind: 'password' })} onSignedIn={done} />
        </Stack>
      )}
      {step.kind === 'enrol' && (
        <EnrolTwoFactor
          enrollmentToken={step.enrollmentToken}
          onEnrolled={(codes, user) => setStep({ kind: 'recovery-codes', codes, user })}
        />
      )}
      {step.kind === 'recovery-codes' && (
        <RecoveryCodes
          codes={step.codes}
          onDone={() => {
            if (step.user) done(step.user);
          }}
        />
      )}
    </Modal>
  );
}
