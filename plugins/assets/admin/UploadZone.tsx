import { Button, Checkbox, FileButton, Group, Paper, Progress, SegmentedControl, Stack, Text } from '@mantine/core';
import { useQueryClient } from '@tanstack/react-query';
import { IconUpload } from '@tabler/icons-react';
import { useState } from 'react';
import { formatBytes } from './model.ts';
import { uploadFile } from './upload.ts';

type Item = { key: string; name: string; size: number; progress: number; error?: string; done: boolean };

/** Drag-and-drop (or pick) files into the open folder, one progress bar per file. */
export function UploadZone({ folder }: { folder: string }) {
  const client = useQueryClient();
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [overwrite, setOverwrite] = useState(false);
  const [items, setItems] = useState<Item[]>([]);
  const [over, setOver] = useState(false);
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
        {/*
          The kit's drop zone (@mantine/dropzone) is not installed: its react-dropzone asks for Node 22
          at install and the product supports Node 20. Native drag events on a section do the same, and
          FileButton (Mantine core) is the keyboard's way in.
        */}
        <Paper
          component="section"
          aria-label="Upload files"
          withBorder
          p="lg"
          radius="md"
          onDragOver={(e) => {
            if (!e.dataTransfer.types.includes('Files')) return;
            e.preventDefault();
            e.dataTransfer.dropEffect = 'copy';
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={(e) => {
            e.preventDefault();
            setOver(false);
            if (e.dataTransfer.files.length) void start([...e.dataTransfer.files]);
          }}
          style={{
            borderStyle: 'dashed',
            borderWidth: 2,
            borderColor: over ? 'var(--mantine-color-blue-8)' : undefined,
            background: over ? 'var(--mantine-color-blue-0)' : undefined,
          }}
        >
          <Group justify="center" gap="md">
            <IconUpload size={32} stroke={1.5} aria-hidden />
            <div>
              <Text size="md">{over ? 'Drop to upload' : 'Drop files here'}</Text>
              <Text size="sm" c="dimmed">
                They go to {folder ? `the folder “${folder}”` : 'the top of the library'}.
              </Text>
            </div>
            <FileButton
              multiple
              onChange={(files) => {
                if (files.length) void start(files);
              }}
            >
              {(props) => (
                <Button variant="light" {...props}>
                  Choose files to upload
                </Button>
              )}
            </FileButton>
          </Group>
        </Paper>
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
