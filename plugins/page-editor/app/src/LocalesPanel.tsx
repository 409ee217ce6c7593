import { Anchor, Button, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { aiProblem, translatePage } from './ai.ts';
import { canvasHtml, createVariant, type EditedDocument, json, translations, type Website } from './documents.ts';
import type { ContentNode } from './tree.ts';

/**
 * The page's locale variants (its translation group): each opens in the editor, and one can be
 * drawn here beside the canvas to compare. A missing locale of the website can be created as a
 * draft copy of this page to translate, or translated by AI ("Translate page":
 * `POST /cms-one/pages/:id/translate`, a draft in the same translation group, opened in the editor).
 */
export function LocalesPanel(props: { doc: EditedDocument; website: Website | null; content: ContentNode }) {
  const [creating, setCreating] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const variants = useQuery({
    queryKey: ['page-editor', 'translations', props.doc.id],
    queryFn: () => translations(props.doc.id),
  });
  const [compare, setCompare] = useState<string | null>(null);
  const other = variants.data?.find((v) => v.id === compare);
  const html = useQuery({
    queryKey: ['page-editor', 'translation-canvas', compare],
    enabled: !!compare,
    queryFn: async () => {
      const page = (await json<{ content: ContentNode }>('GET', `/cms-one/pages/${encodeURIComponent(compare!)}`)).data;
      return canvasHtml({ kind: 'pages', id: compare! }, page.content);
    },
  });
  const others = (variants.data ?? []).filter((v) => v.id !== props.doc.id);
  const missing = (props.website?.locales ?? []).filter((l) => !(variants.data ?? []).some((v) => v.locale === l));
  return (
    <Stack gap="xs" mb="md">
      <Title order={2} size="h5">
        Locales
      </Title>
      {variants.isLoading && <Text size="sm">Loading locale variants…</Text>}
      {others.length === 0 && variants.data && <Text size="sm">No other locale of this page yet.</Text>}
      {others.map((v) => (
        <Anchor key={v.id} href={`/cms-one/editor/pages/${v.id}`} size="sm">
          Edit the {v.locale} version: {v.title}
        </Anchor>
      ))}
      {missing.length > 0 && (
        <Text size="xs" c="dimmed">
          Not translated yet: {missing.join(', ')}.
        </Text>
      )}
      {missing.map((locale) => (
        <Button
          key={locale}
          size="compact-xs"
          variant="light"
          loading={creating === locale}
          onClick={async () => {
            setCreating(locale);
            setProblem(null);
            try {
              const id = await createVariant(props.doc, locale, props.content);
              window.location.assign(`/cms-one/editor/pages/${id}`);
            } catch (err) {
              setProblem((err as Error).message);
              setCreating(null);
            }
          }}
        >
          Create the {locale} version (a copy to translate)
        </Button>
      ))}
      {missing.map((locale) => (
        <Button
          key={`ai-${locale}`}
          size="compact-xs"
          variant="light"
          color="grape"
          loading={creating === `ai-${locale}`}
          disabled={creating !== null}
          onClick={async () => {
            setCreating(`ai-${locale}`);
            setProblem(null);
            try {
              const id = await translatePage(props.doc.id, locale);
              window.location.assign(`/cms-one/editor/pages/${id}`);
            } catch (err) {
              setProblem(aiProblem(err));
              setCreating(null);
            }
          }}
        >
          Translate page into {locale} (AI draft)
        </Button>
      ))}
      {problem && (
        <Text size="sm" c="red.8" role="alert">
          The locale version was not created: {problem}
        </Text>
      )}
      {others.length > 0 && (
        <Select
          label="Show a locale side by side"
          placeholder="Choose a locale"
          clearable
          data={others.map((v) => ({ value: v.id, label: `${v.locale}: ${v.title}` }))}
          value={compare}
          onChange={setCompare}
        />
      )}
      {other && html.data && (
        <iframe className="cms-version-frame" title={`The ${other.locale} version`} sandbox="" srcDoc={html.data} />
      )}
    </Stack>
  );
}
