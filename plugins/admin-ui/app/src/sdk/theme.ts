import { createTheme, type CSSVariablesResolver, Modal } from '@mantine/core';

/** The Mantine theme of the dashboard (and of the other browser apps, such as the page editor). */
export const theme = createTheme({
  primaryColor: 'blue',
  // Shade 8 on white (and white on shade 8) passes WCAG AA contrast; Mantine's default 6 does not.
  primaryShade: { light: 8, dark: 6 },
  // Visible focus for keyboard users on every control.
  focusRing: 'auto',
  defaultRadius: 'md',
  components: {
    // Every dialog's close button needs a name (axe: button-name), the confirmations of the SDK too.
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } }),
  },
});

/** Colours whose darkest shade is still too light for text on their own tint. */
const PALE = new Set(['yellow', 'lime', 'orange', 'green', 'teal', 'cyan']);

/**
 * WCAG AA contrast (4.5:1) in the light scheme: Mantine's dimmed text (gray 6) and the text of its
 * light variants (shade 6 on a tint: active menu entries, alerts, badges) fall short of it.
 */
export const contrast: CSSVariablesResolver = (t) => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    // A field's error text (red 6 on white is 3.3:1).
    '--mantine-color-error': 'var(--mantine-color-red-8)',
    ...Object.fromEntries(
      Object.keys(t.colors).flatMap((c) => [
        [
          `--mantine-color-${c}-light-color`,
          PALE.has(c) ? 'var(--mantine-color-dark-8)' : `var(--mantine-color-${c}-9)`,
        ],
        // Tint and hover tint light enough for that text (Mantine's hover tint, shade 2, is not).
        [`--mantine-color-${c}-light`, `var(--mantine-color-${c}-0)`],
        [`--mantine-color-${c}-light-hover`, `var(--mantine-color-${c}-1)`],
      ]),
    ),
  },
  dark: {},
});
