import { TextInput, type TextInputProps } from '@mantine/core';

/**
 * A path as the server stores it: one leading `/`. Path fields start filled with `/` and their hints
 * say "e.g. /about", so typing `/about` after the `/` (or pasting it) must not give `//about`, and
 * typing `about` over a selected `/` must not lose it. An emptied field stays empty (the form says
 * what is missing).
 */
export function slashed(raw: string): string {
  return raw === '' ? '' : `/${raw.replace(/^\/+/, '')}`;
}

type PathInputProps = Omit<TextInputProps, 'onChange' | 'value'> & {
  value?: string;
  /** Called with the path, its leading slashes made one; `form.getInputProps` fits. */
  onChange?: (path: string) => void;
};

/** A text input for a site path (`/about`, `/shop`): whatever the person types starts with one `/`. */
export function PathInput({ onChange, ...props }: PathInputProps) {
  return (
    <TextInput
      spellCheck={false}
      autoCapitalize="off"
      {...props}
      onChange={(e) => onChange?.(slashed(e.currentTarget.value))}
    />
  );
}
