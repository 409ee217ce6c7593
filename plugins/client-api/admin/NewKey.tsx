import { Alert, Button, Code, CopyButton, Group, Modal, Stack, Text } from '@mantine/core';

/** A new key, shown once: the API keeps only its hash, so this dialog is the one chance to copy it. */
export function NewKeyModal({ apiKey, client, onClose }: { apiKey?: string; client: string; onClose: () => void }) {
  return (
    <Modal
      closeButtonProps={{ 'aria-label': 'Close' }}
      opened={Boolean(apiKey)}
      onClose={onClose}
      title={`New key of ${client}`}
      closeOnClickOutside={false}
    >
      <Stack>
        <Alert color="yellow" title="Copy the key now">
          It is shown only this once; the product stores only a fingerprint of it. If it is lost, add a new key and
          revoke this one.
        </Alert>
        <Code block aria-label="The new API key" style={{ wordBreak: 'break-all', whiteSpace: 'pre-wrap' }}>
          {apiKey}
        </Code>
        <Text size="sm" c="dimmed">
          Callers send it as <Code>Authorization: Bearer …</Code> or <Code>X-Cms-Key</Code>, from a server only.
        </Text>
        <Group justify="flex-end">
          <CopyButton value={apiKey ?? ''}>
            {({ copied, copy }) => (
              <Button variant="light" color={copied ? 'green' : 'blue'} onClick={copy}>
                {copied ? 'Copied' : 'Copy key'}
              </Button>
            )}
          </CopyButton>
          <Button onClick={onClose}>I saved it, close</Button>
        </Group>
      </Stack>
    </Modal>
  );
}
