import { Anchor, Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';
import { ApiError } from '../../../admin-ui/app/src/sdk/index.ts';

/** The editor's whole-screen states: loading, and what went wrong with a way back. */
export function Centered(props: { children: ReactNode }) {
  return (
    <Stack align="center" justify="center" mih="60vh" p="md" component="main">
      {props.children}
    </Stack>
  );
}

export function Problem(props: { title: string; children: ReactNode }) {
  return (
    <Centered>
      <Title order={1} size="h3">
        {props.title}
      </Title>
      <Text>{props.children}</Text>
      <Anchor href="/admin">Back to the dashboard</Anchor>
    </Centered>
  );
}

export function problemOf(error: unknown, what: string): { title: string; text: string } {
  if (error instanceof ApiError && error.status === 404)
    return { title: `No such ${what}`, text: `The ${what} does not exist (any more).` };
  if (error instanceof ApiError && error.status === 403)
    return { title: 'Not allowed', text: `Your role may not open this ${what}.` };
  return { title: `The ${what} could not be opened`, text: (error as Error).message };
}
