import {
  Button,
  ColorInput,
  ColorPicker,
  MantineThemeProvider,
  Stack,
  Text,
  Textarea,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo, useState } from 'react';
import { activeTheme, saveTheme, type Theme, type ThemeValues } from './documents.ts';

/**
 * One colour of the theme: a text field for the value (the keyboard's way) with Mantine's picker
 * below it, whose sliders are named after the colour. ColorInput does not hand `saturationLabel`,
 * `hueLabel` and `alphaLabel` on to its picker, but the picker also reads them from the theme's
 * default props: a theme of the field's own gives them (the rest of the theme is inherited).
 */
function ColorField(props: { name: string; value: string; onChange(value: string): void }) {
  const { name } = props;
  const labels = useMemo(
    () => ({
      components: {
        ColorPicker: ColorPicker.extend({
          defaultProps: {
            saturationLabel: `Saturation and brightness of the colour ${name}`,
            hueLabel: `Hue of the colour ${name}`,
            alphaLabel: `Opacity of the colour ${name}`,
          },
        }),
      },
    }),
    [name],
  );
  return (
    <MantineThemeProvider theme={labels}>
      <ColorInput
        label={`Colour ${name}`}
        eyeDropperButtonProps={{ 'aria-label': `Pick the colour ${name} from the screen` }}
        value={props.value}
        onChange={props.onChange}
      />
    </MantineThemeProvider>
  );
}

/**
 * The website's active theme, edited with the canvas redrawn on every change (the unsaved theme is
 * sent with the canvas request); "Save the theme" stores it for the whole website.
 */
export function ThemePanel(props: { websiteId: string; mayEdit: boolean; onDraft(theme: ThemeValues | null): void }) {
  const client = useQueryClient();
  const theme = useQuery({
    queryKey: ['page-editor', 'theme', props.websiteId],
    queryFn: () => activeTheme(props.websiteId),
  });
  const [draft, setDraft] = useState<Theme | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const { onDraft } = props;
  useEffect(() => {
    if (theme.data) setDraft(theme.data);
  }, [theme.data]);
  useEffect(() => () => onDraft(null), [onDraft]);
  if (theme.isLoading) return <Text size="sm">Loading the theme…</Text>;
  if (!theme.data || !draft)
    return (
      <Stack gap="xs">
        <Title order={2} size="h5">
          Theme
        </Title>
        <Text size="sm">This website has no active theme; set one in the dashboard.</Text>
      </Stack>
    );
  const change = (next: Theme) => {
    setDraft(next);
    setMessage(null);
    onDraft({ colors: next.colors, fonts: next.fonts, customStyles: next.customStyles });
  };
  return (
    <Stack gap="xs">
      <Title order={2} size="h5">
        Theme: {draft.name}
      </Title>
      {Object.entries(draft.colors ?? {}).map(([name, value]) => (
        <ColorField
          key={name}
          name={name}
          value={value}
          onChange={(v) => change({ ...draft, colors: { ...draft.colors, [name]: v } })}
        />
      ))}
      {Object.entries(draft.fonts ?? {}).map(([name, value]) => (
        <TextInput
          key={name}
          label={`Font ${name}`}
          value={value}
          onChange={(e) => change({ ...draft, fonts: { ...draft.fonts, [name]: e.currentTarget.value } })}
        />
      ))}
      <Textarea
        label="Custom styles"
        autosize
        minRows={3}
        maxRows={10}
        value={draft.customStyles ?? ''}
        onChange={(e) => change({ ...draft, customStyles: e.currentTarget.value })}
      />
      {!props.mayEdit && (
        <Text size="xs" c="dimmed">
          Changes show on the canvas only: saving the theme needs websites:edit.
        </Text>
      )}
      <Button
        size="xs"
        display={props.mayEdit ? undefined : 'none'}
        onClick={async () => {
          try {
            const saved = await saveTheme(draft);
            await client.invalidateQueries({ queryKey: ['page-editor', 'theme', props.websiteId] });
            setDraft(saved);
            setMessage('Theme saved');
          } catch (err) {
            setMessage(`The theme was not saved: ${(err as Error).message}`);
          }
        }}
      >
        Save the theme
      </Button>
      {message && (
        <Text size="sm" role="status">
          {message}
        </Text>
      )}
    </Stack>
  );
}
