import { badRequest } from '../../../kernel/index.ts';
import { checkStyles, unsafeStyles } from './themes.ts';

/** The parts of a theme a page is styled with (a stored theme, or the unsaved one an editor is changing). */
export interface ThemeValues {
  colors?: Record<string, string>;
  fonts?: Record<string, string>;
  customStyles?: string;
}

const VARIABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;
// A custom property value that cannot leave its declaration, the rule or the style element.
const VARIABLE_VALUE = /^[^<>{};\\]{1,300}$/;

/**
 * A theme as CSS: its colors and fonts as custom properties (`--cms-color-<name>`,
 * `--cms-font-<name>`), a small base sheet that uses the usual names (`text`, `background`,
 * `primary`; `body`, `heading`), then the theme's own styles. Names or values that could leave a
 * declaration are refused with a 400 naming them, or, for a stored theme (`lenient`: checked less
 * strictly when it was written), left out, so a public page never fails on its theme.
 */
export function themeCss(theme: ThemeValues | null, opts: { field?: string; lenient?: boolean } = {}): string {
  const field = opts.field ?? 'theme';
  const declarations: string[] = [];
  for (const [group, prefix] of [
    ['colors', '--cms-color-'],
    ['fonts', '--cms-font-'],
  ] as const) {
    for (const [name, value] of Object.entries(theme?.[group] ?? {})) {
      if (!VARIABLE_NAME.test(name) || typeof value !== 'string' || !VARIABLE_VALUE.test(value)) {
        if (opts.lenient) continue;
        throw badRequest(`Theme ${group} "${name.slice(0, 64)}" is not a plain CSS value`, `${field}.${group}.${name}`);
      }
      declarations.push(`${prefix}${name}:${value}`);
    }
  }
  const custom = theme?.customStyles ?? '';
  if (opts.lenient && unsafeStyles(custom)) return themeCss({ ...theme, customStyles: '' }, opts);
  checkStyles(custom);
  return [
    `:root{${declarations.join(';')}}`,
    'body{margin:0;font-family:var(--cms-font-body,system-ui,sans-serif);color:var(--cms-color-text,#1a1a1a);background:var(--cms-color-background,#fff)}',
    'h1,h2,h3,h4,h5,h6{font-family:var(--cms-font-heading,inherit)}',
    'a{color:var(--cms-color-primary,#1c5fc7)}',
    'img{max-width:100%;height:auto}',
    custom,
  ].join('\n');
}
