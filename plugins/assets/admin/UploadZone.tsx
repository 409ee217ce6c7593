import '@mantine/dropzone/styles.css';
import { Button, Checkbox, Group, Paper, Progress, SegmentedControl, Stack, Text } from '@mantine/core';
import { Dropzone } from '@mantine/dropzone';
import { useQueryClient } from '@tanstack/react-query';
import { IconUpload } from '@tabler/icons-react';
import { useRef, useState } from 'react';
import { formatBytes } from './types.ts';
import { uploadFile } from './upload.ts';

type Item = { key: string; name: string; size: number; progress: number; error?: string; done: boolean };

/** Drag-and-drop (or pick) files into the open folder, one progress bar per file. */
export function UploadZone({ folder }: { folder: string }) {
  const client = useQueryClient();
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [overwrite, setOverwrite] = useState(false);
  const [items, setItems] = useState<Item[]>([]);
  const openRef = useRef<() => void>(null);
  const update = (key: string, change: Partial<Item>) =>
    setItems((all) => all.map((i) => (i.key === key ? { ...i, ...change } : i)));

  const start = async (files: File[]) => {
    const batch = files.map((f, n) => ({
      key: `${Date.now()}-${n}-${f.name}`,
      name: f.name,
      size: f.size,
      progress: 0,
      done: false,
    }));
    setItems((all) => [...batch, ...all.filter((i) => !i.done || i.error)].slice(0, 20));
    // One at a time: the bars move in order and the server is not flooded by a big drop.
    for (const [n, file] of files.entries()) {
      const key = batch[n].key;
      try {
        await uploadFile(file, { folder, visibility, overwrite }, (p) => update(key, { progress: p }));
        update(key, { progress: 1, done: true });
      } catch (err) {
        update(key, { done: true, error: err instanceof Error ? err.message : 'The upload failed' });
      }
      await client.invalidateQueries({ queryKey: ['assets'] });
    }
  };

  return (
    <Paper withBorder p="md" radius="md">
      <Stack gap="sm">
        <Group justify="space-between" wrap="wrap">
          <Group gap="xs">
            <Text size="sm" id="upload-visibility-label">
              New files are
            </Text>
            <SegmentedControl
              aria-labelledby="upload-visibility-label"
              size="xs"
              value={visibility}
              onChange={(v) => setVisibility(v as 'public' | 'private')}
              data={[
                { value: 'public', label: 'Public' },
                { value: 'private', label: 'Private' },
              ]}
            />
          </Group>
          <Checkbox
            size="xs"
            label="Replace files of the same name (new version)"
            checked={overwrite}
            onChange={(e) => setOverwrite(e.currentTarget.checked)}
          />
        </Group>
        {/* The zone takes drops and clicks; keyboards and screen readers use the button below it. */}
        <Dropzone onDrop={(files) => void start(files)} openRef={openRef} tabIndex={-1}>
          <Group justify="center" gap="md" mih={90} style={{ pointerEvents: 'none' }}>
            <IconUpload size={32} stroke={1.5} aria-hidden />
            <div>
              <Text size="md">Drop files here, or click to choose</Text>
              <Text size="sm" c="dimmed">
                They go to {folder ? `the folder “${folder}”` : 'the top of the library'}.
              </Text>
            </div>
          </Group>
        </Dropzone>
        <Button variant="light" w="fit-content" onClick={() => openRef.current?.()}>
          Choose files to upload
        </Button>
        {items.length > 0 && (
          <Stack component="ul" gap={6} aria-label="Uploads" p={0} m={0} style={{ listStyle: 'none' }}>
            {items.map((i) => (
              <li key={i.key}>
                <Group justify="space-between" gap="xs" wrap="nowrap">
                  <Text size="sm" truncate>
                    {i.name} <span style={{ color: 'var(--mantine-color-dimmed)' }}>({formatBytes(i.size)})</span>
                  </Text>
                  <Text size="xs" c={i.error ? 'red.9' : 'dimmed'} role={i.error ? 'alert' : undefined}>
                    {i.error ?? (i.done ? 'Uploaded' : `${Math.round(i.progress * 100)} %`)}
                  </Text>
                </Group>
                <Progress
                  value={i.progress * 100}
                  color={i.error ? 'red' : i.done ? 'green' : 'blue'}
                  size="sm"
                  aria-label={`Upload of ${i.name}`}
                />
              </li>
            ))}
          </Stack>
        )}
      </Stack>
    </Paper>
  );
}
