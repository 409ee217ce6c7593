import { Alert, Badge, Button, Group, Paper, PasswordInput, Stack, Text } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import {
  api,
  EnrolTwoFactor,
  PageHeader,
  QueryState,
  RecoveryCodes,
  showSaved,
  showSaveError,
  unwrap,
} from '../../admin-ui/app/src/sdk/index.ts';

const STATUS_KEY = ['identity', 'mfa-status'];

function DisableForm({ onDone }: { onDone: () => void }) {
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        try {
          unwrap(await api.POST('/auth/mfa/disable', { body: { password } }));
          showSaved('Two-factor sign-in is off');
          onDone();
        } catch (err) {
          showSaveError(err);
        } finally {
          setBusy(false);
        }
      }}
    >
      <Group align="flex-end">
        <PasswordInput
          label="Your password"
          description="Needed to turn the second factor off"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.currentTarget.value)}
          required
        />
        <Button type="submit" color="red" variant="light" loading={busy} disabled={!password}>
          Turn off
        </Button>
      </Group>
    </form>
  );
}

/** `/admin/account/security`: the signed-in user's second factor (status, enrolment, turning it off). */
export default function AccountSecurity() {
  const client = useQueryClient();
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: async () => unwrap(await api.GET('/auth/mfa/status')) });
  const [enrolling, setEnrolling] = useState(false);
  const [codes, setCodes] = useState<string[]>();
  const refresh = () => client.invalidateQueries({ queryKey: STATUS_KEY });
  return (
    <Stack maw={640}>
      <PageHeader
        title="Two-factor sign-in"
        description="A code from an authenticator app, asked for after your password."
      />
      <QueryState query={status}>
        {(s) => (
          <Paper withBorder p="lg">
            <Stack>
              <Group>
                <Text fw={600}>Status</Text>
                <Badge color={s.enabled ? 'green' : 'gray'}>{s.enabled ? 'On' : 'Off'}</Badge>
                {s.required && <Badge color="orange">Required by your role</Badge>}
              </Group>
              {s.enabled && <Text size="sm">Recovery codes left: {s.recoveryCodesRemaining}</Text>}
              {codes && (
                <RecoveryCodes
                  codes={codes}
                  onDone={() => {
                    setCodes(undefined);
                    void refresh();
                  }}
                />
              )}
              {!s.enabled && !enrolling && !codes && (
                <Button w="fit-content" onClick={() => setEnrolling(true)}>
                  Set up two-factor sign-in
                </Button>
              )}
              {!s.enabled && enrolling && (
                <EnrolTwoFactor
                  onEnrolled={(c) => {
                    setEnrolling(false);
                    setCodes(c);
                  }}
                />
              )}
              {s.enabled && !codes && s.required && (
                <Alert color="orange">Your role requires a second factor, so it cannot be turned off.</Alert>
              )}
              {s.enabled && !codes && !s.required && <DisableForm onDone={() => void refresh()} />}
            </Stack>
          </Paper>
        )}
      </QueryState>
    </Stack>
  );
}
