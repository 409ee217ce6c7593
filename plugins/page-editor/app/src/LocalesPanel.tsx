import { Anchor, Select, Stack, Text, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { canvasHtml, type EditedDocument, translations, type Website } from './documents.ts';

/**
 * The page's locale variants (its translation group): each opens in the editor, and one can be
 * drawn here beside the canvas to compare. Creating a variant by AI translation needs the AI
 * plugin's route (`POST /cms-one/pages/:id/translate`), which this installation does not serve, so
 * it is not offered.
 */
export function LocalesPanel(props: { doc: EditedDocument; website: Website | null }) {
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
      const page = await (await fetch(`/cms-one/pages/${compare}`, { credentials: 'same-origin' })).json();
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
