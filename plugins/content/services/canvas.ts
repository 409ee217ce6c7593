import { badRequest } from '../../../kernel/index.ts';
import type { LayoutRow } from '../store/layouts.ts';
import type { ContentNode } from './node-tree.ts';
import { escapeHtml, renderHtml } from './render.ts';
import { checkStyles } from './themes.ts';

/** The parts of a theme the canvas applies (a stored theme, or the unsaved one an editor is changing). */
export interface CanvasTheme {
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
 * declaration are refused with a 400 naming them.
 */
export function themeCss(theme: CanvasTheme | null, field = 'theme'): string {
  const declarations: string[] = [];
  for (const [group, prefix] of [
    ['colors', '--cms-color-'],
    ['fonts', '--cms-font-'],
  ] as const) {
    for (const [name, value] of Object.entries(theme?.[group] ?? {})) {
      if (!VARIABLE_NAME.test(name) || typeof value !== 'string' || !VARIABLE_VALUE.test(value))
        throw badRequest(`Theme ${group} "${name.slice(0, 64)}" is not a plain CSS value`, `${field}.${group}.${name}`);
      declarations.push(`${prefix}${name}:${value}`);
    }
  }
  checkStyles(theme?.customStyles);
  return [
    `:root{${declarations.join(';')}}`,
    'body{margin:0;font-family:var(--cms-font-body,system-ui,sans-serif);color:var(--cms-color-text,#1a1a1a);background:var(--cms-color-background,#fff)}',
    'h1,h2,h3,h4,h5,h6{font-family:var(--cms-font-heading,inherit)}',
    'a{color:var(--cms-color-primary,#1c5fc7)}',
    'img{max-width:100%;height:auto}',
    theme?.customStyles ?? '',
  ].join('\n');
}

/** Layout regions a canvas can mark for editing. */
export type CanvasRegion = 'header' | 'aside' | 'main' | 'footer' | 'notFound';

export interface CanvasInput {
  title: string;
  locale: string | null;
  /** The page's own nodes; absent on a layout's canvas, which shows a placeholder in their place. */
  content?: ContentNode;
  layout?: Pick<LayoutRow, 'regions' | 'slots'>;
  theme: CanvasTheme | null;
  stripComments: boolean;
  /** A layout's canvas: the region being edited, whose nodes are marked instead of the content's. */
  editedRegion?: CanvasRegion;
}

/** Where a page's content goes on a layout's canvas (drawn by the editor, not by the site). */
const BODY_PLACEHOLDER =
  '<div data-cms-placeholder style="margin:1rem;padding:2rem 1rem;border:2px dashed #868e96;color:#495057;' +
  'background:#f8f9fa;text-align:center;font:1rem system-ui,sans-serif">The page\'s content goes here</div>';

/**
 * The page as a whole HTML document, the way the website shows it: the layout's header, aside and
 * footer regions around a `main` element (the layout's `body` slot class and style) that holds the
 * layout's `main` region followed by the page's content, styled by the theme. Only the page's own
 * nodes are marked with their paths (`data-cms-node`), so the editor can select and patch them;
 * layout regions are context, not editable here. No script: the renderer emits none. On a layout's
 * canvas the edited region's nodes are the marked ones, and the page's content is a placeholder
 * (the `notFound` region takes its place while that region is edited).
 */
export function canvasDocument(input: CanvasInput): string {
  const region = (name: CanvasRegion) => {
    const tree = input.layout?.regions?.[name];
    return tree ? renderHtml(tree, { stripComments: input.stripComments, annotate: name === input.editedRegion }) : '';
  };
  const body = input.layout?.slots?.body ?? {};
  const bodyAttributes =
    (typeof body.className === 'string' && body.className ? ` class="${escapeHtml(body.className)}"` : '') +
    (typeof body.style === 'string' && body.style ? ` style="${escapeHtml(body.style)}"` : '');
  const header = region('header');
  const aside = region('aside');
  const footer = region('footer');
  const content = input.content
    ? renderHtml(input.content, { stripComments: input.stripComments, annotate: !input.editedRegion })
    : input.editedRegion === 'notFound'
      ? region('notFound')
      : BODY_PLACEHOLDER;
  return (
    `<!DOCTYPE html><html${input.locale ? ` lang="${escapeHtml(input.locale)}"` : ''}><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<title>${escapeHtml(input.title)}</title><style data-cms-theme>${themeCss(input.theme)}</style></head><body>` +
    (header ? `<header data-cms-region="header">${header}</header>` : '') +
    (aside ? `<aside data-cms-region="aside">${aside}</aside>` : '') +
    `<main${bodyAttributes}>${region('main')}${content}</main>` +
    (footer ? `<footer data-cms-region="footer">${footer}</footer>` : '') +
    '</body></html>'
  );
}
