import { Center, Paper, Stack, Text, Title } from '@mantine/core';
import { type ReactNode, useEffect, useRef } from 'react';

/** The centred card of the signed-out pages (sign-in, 2FA, password reset). */
export function AuthFrame({ title, intro, children }: { title: string; intro?: ReactNode; children: ReactNode }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · Content platform`;
    heading.current?.focus();
  }, [title]);
  return (
    <Center component="main" mih="100vh" p="md" bg="var(--mantine-color-gray-0)">
      <Paper withBorder shadow="sm" p="xl" radius="md" w="100%" maw={420}>
        <Stack gap="md">
          <Text size="sm" fw={700} c="blue.8">
            Content platform
          </Text>
          <Title order={1} size="h3" ref={heading} tabIndex={-1} style={{ outline: 'none' }}>
            {title}
          </Title>
          {intro && (
            <Text size="sm" c="dimmed">
              {intro}
            </Text>
          )}
          {children}
        </Stack>
      </Paper>
    </Center>
  );
}
