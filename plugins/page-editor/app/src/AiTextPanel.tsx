import { Button, Group, Paper, Select, Stack, Text, Textarea, Title } from '@mantine/core';
import { useRef, useState } from 'react';
import { type AiAction, aiProblem, aiPrompt, streamGeneration } from './ai.ts';

const LANGUAGES = ['English', 'German', 'French', 'Italian', 'Spanish', 'Dutch', 'Portuguese'];

/**
 * AI on a text block: "Rewrite", "Shorten", "Translate into…" and "Write from a prompt". The answer
 * streams into a preview; it replaces the block's text only when the person accepts it.
 */
export function AiTextPanel(props: { text: string; onAccept(text: string): void }) {
  const [language, setLanguage] = useState<string | null>(null);
  const [prompt, setPrompt] = useState('');
  const [preview, setPreview] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const abort = useRef<AbortController | null>(null);

  const run = async (action: AiAction, extra = '') => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setProblem(null);
    setPreview('');
    setRunning(true);
    try {
      const text = await streamGeneration(aiPrompt(action, props.text, extra), setPreview, controller.signal);
      if (!controller.signal.aborted) setPreview(text);
    } catch (err) {
      if (!controller.signal.aborted) {
        setPreview(null);
        setProblem(aiProblem(err));
      }
    } finally {
      if (abort.current === controller) setRunning(false);
    }
  };
  const discard = () => {
    abort.current?.abort();
    setRunning(false);
    setPreview(null);
  };
  const hasText = props.text.trim().length > 0;
  return (
    <Paper withBorder p="xs">
      <Stack gap="xs">
        <Title order={3} size="h6">
          AI assistance
        </Title>
        <Group gap="xs">
          <Button size="compact-xs" variant="light" disabled={!hasText || running} onClick={() => run('rewrite')}>
            Rewrite
          </Button>
          <Button size="compact-xs" variant="light" disabled={!hasText || running} onClick={() => run('shorten')}>
            Shorten
          </Button>
        </Group>
        <Group gap="xs" align="flex-end">
          <Select
            size="xs"
            label="Translate into"
            placeholder="Language"
            data={LANGUAGES}
            value={language}
            onChange={setLanguage}
            w={130}
          />
          <Button
            size="compact-xs"
            variant="light"
            disabled={!hasText || !language || running}
            onClick={() => language && run('translate', language)}
          >
            Translate
          </Button>
        </Group>
        <Textarea
          size="xs"
          label="Write from a prompt"
          placeholder="e.g. An inviting intro for our summer menu"
          autosize
          minRows={2}
          value={prompt}
          onChange={(e) => setPrompt(e.currentTarget.value)}
        />
        <Button
          size="compact-xs"
          variant="light"
          disabled={!prompt.trim() || running}
          onClick={() => run('prompt', prompt.trim())}
        >
          Write
        </Button>
        {preview !== null && (
          <Stack gap={4}>
            <Text size="xs" fw={600} id="cms-ai-preview-label">
              {running ? 'Suggestion (arriving…)' : 'Suggestion: not applied until you accept it'}
            </Text>
            <Text
              size="sm"
              className="cms-ai-preview"
              role="status"
              aria-live="polite"
              aria-labelledby="cms-ai-preview-label"
              style={{ whiteSpace: 'pre-wrap' }}
            >
              {preview}
            </Text>
            <Group gap="xs">
              <Button
                size="compact-xs"
                disabled={running || !preview.trim()}
                onClick={() => {
                  props.onAccept(preview);
                  setPreview(null);
                }}
              >
                Accept
              </Button>
              <Button size="compact-xs" variant="default" onClick={discard}>
                Discard
              </Button>
            </Group>
          </Stack>
        )}
        {problem && (
          <Text size="sm" c="red.8" role="alert">
            AI assistance failed: {problem}
          </Text>
        )}
      </Stack>
    </Paper>
  );
}
