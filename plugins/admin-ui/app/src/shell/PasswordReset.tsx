import { Alert, Anchor, Button, PasswordInput, Stack, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api, ApiError, unwrap } from '../api/client';
import { AuthFrame } from './AuthFrame';

const BackToSignIn = () => (
  <Anchor component={Link} to="/sign-in" size="sm">
    Back to sign-in
  </Anchor>
);

/** `/forgot-password`: asks for a reset e-mail (the answer never says whether the address exists). */
export function ForgotPassword() {
  const [sent, setSent] = useState<string>();
  const [error, setError] = useState<string>();
  const form = useForm({
    initialValues: { email: '' },
    validate: { email: (v) => (/^\S+@\S+$/.test(v.trim()) ? null : 'Enter your e-mail address') },
  });
  return (
    <AuthFrame title="Reset your password" intro="We send a link to choose a new password to your e-mail address.">
      {sent ? (
        <Alert color="green" role="status">
          {sent}
        </Alert>
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit(async ({ email }) => {
            setError(undefined);
            try {
              const answer = unwrap(await api.POST('/auth/forgot-password', { body: { email: email.trim() } }));
              setSent(answer.message);
            } catch (err) {
              setError(err instanceof Error ? err.message : 'The request failed');
            }
          })}
        >
          <Stack>
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <TextInput label="E-mail" type="email" autoComplete="email" required {...form.getInputProps('email')} />
            <Button type="submit" loading={form.submitting}>
              Send the link
            </Button>
          </Stack>
        </form>
      )}
      <BackToSignIn />
    </AuthFrame>
  );
}

/** `/reset-password?token=...`: the link of the reset e-mail; a new password, then sign in. */
export function ResetPassword() {
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string>();
  const form = useForm({
    initialValues: { password: '', repeat: '' },
    validate: {
      password: (v) => (v ? null : 'Choose a password'),
      repeat: (v, values) => (v === values.password ? null : 'The two passwords differ'),
    },
  });
  if (!token)
    return (
      <AuthFrame title="Choose a new password">
        <Alert color="red" role="alert">
          This link has no reset token. Open the link from the e-mail again, or ask for a new one.
        </Alert>
        <Anchor component={Link} to="/forgot-password" size="sm">
          Ask for a new link
        </Anchor>
      </AuthFrame>
    );
  return (
    <AuthFrame title="Choose a new password">
      {done ? (
        <Alert color="green" role="status">
          Your password is changed and your other sessions are signed out. Sign in with the new password.
        </Alert>
      ) : (
        <form
          noValidate
          onSubmit={form.onSubmit(async ({ password }) => {
            setError(undefined);
            try {
              unwrap(await api.POST('/auth/reset-password', { body: { token, password } }));
              setDone(true);
            } catch (err) {
              if (err instanceof ApiError && err.field === 'password') form.setFieldError('password', err.message);
              else setError(err instanceof Error ? err.message : 'The reset failed');
            }
          })}
        >
          <Stack>
            {error && (
              <Alert color="red" role="alert">
                {error}
              </Alert>
            )}
            <PasswordInput
              label="New password"
              autoComplete="new-password"
              required
              {...form.getInputProps('password')}
            />
            <PasswordInput
              label="Repeat the new password"
              autoComplete="new-password"
              required
              {...form.getInputProps('repeat')}
            />
            <Button type="submit" loading={form.submitting}>
              Change the password
            </Button>
          </Stack>
        </form>
      )}
      <BackToSignIn />
    </AuthFrame>
  );
}
