import type { FigmaColor, FigmaNode, FigmaPaint, FigmaStyleMeta, FigmaTypeStyle } from './figma-types.ts';

/** A node of the page tree (the content plugin's `{ type, props?, children?, text? }`). */
export interface PageNode {
  type: string;
  props?: Record<string, unknown>;
  children?: PageNode[];
  text?: string;
}

export interface ImportWarning {
  code: string;
  figmaNodeId: string | null;
  nodeName: string | null;
  message: string;
}

/** An image node waiting for its bytes: an image fill (`imageRef`) or a node Figma renders. */
export interface PendingImage {
  figmaNodeId: string;
  name: string;
  kind: 'fill' | 'render';
  imageRef?: string;
  format: 'png' | 'svg';
  node: PageNode;
  /** The children array holding `node`, so an image that cannot be stored is taken out again. */
  siblings: PageNode[];
}

export interface MappedDesign {
  content: PageNode;
  images: PendingImage[];
  fonts: Array<{ family: string; weights: number[]; styles: string[] }>;
  colors: Array<{ hex: string; uses: number; usage: Array<'text' | 'fill' | 'stroke'> }>;
  warnings: ImportWarning[];
  /** Why the tree was cut short (too deep, too many nodes), whatever the warnings cap: the import is refused. */
  cut?: ImportWarning;
}

/**
 * Caps that keep the tree inside the content plugin's rules (64 levels, 20,000 nodes) with room for
 * the root and inline marks: deeper or further parts are left out with a warning.
 */
export const MAPPING_LIMITS = { depth: 40, nodes: 10_000, textChars: 20_000, warnings: 200, figmaNodes: 200_000 };

const CONTAINERS = new Set([
  'FRAME',
  'GROUP',
  'SECTION',
  'COMPONENT',
  'COMPONENT_SET',
  'INSTANCE',
  'CANVAS',
  'DOCUMENT',
]);
const SHAPES = new Set(['RECTANGLE', 'ELLIPSE', 'VECTOR', 'BOOLEAN_OPERATION', 'STAR', 'POLYGON', 'REGULAR_POLYGON']);
const BUTTON_NAME = /(^|[\s/_-])(button|btn|cta)($|[\s/_\-0-9])/i;
/** Layer names Figma gives by default: no use as alternative text. */
const DEFAULT_NAME = /^(rectangle|ellipse|image|frame|group|vector|photo|img)\s*\d*$/i;
const HEADING_STYLE = /(?:^|[\s/_-])(?:h|heading\s*|title\s*)([1-6])(?:$|[\s/_-])/i;
const ALIGN: Record<string, string> = {
  MIN: 'flex-start',
  CENTER: 'center',
  MAX: 'flex-end',
  SPACE_BETWEEN: 'space-between',
  BASELINE: 'baseline',
};

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const str = (v: unknown, max = 200): string | undefined => (typeof v === 'string' ? v.slice(0, max) : undefined);
const px = (v: number) => `${Math.round(Math.min(Math.max(v, 0), 10_000))}px`;

function hexOf(c: FigmaColor | undefined, opacity = 1): string | undefined {
  if (!c || typeof c !== 'object') return undefined;
  const channels = [c.r, c.g, c.b].map(num);
  if (channels.some((v) => v === undefined)) return undefined;
  const alpha = (num(c.a) ?? 1) * (num(opacity) ?? 1);
  const hex = (v: number) =>
    Math.round(Math.min(Math.max(v, 0), 1) * 255)
      .toString(16)
      .padStart(2, '0');
  return `#${(channels as number[]).map(hex).join('')}${alpha < 1 ? hex(alpha) : ''}`;
}

const visiblePaints = (paints: unknown): FigmaPaint[] =>
  Array.isArray(paints) ? paints.filter((p) => p && typeof p === 'object' && p.visible !== false) : [];

/** The href a Figma hyperlink may become: http(s), mailto and tel; anything else is dropped. */
function safeHref(link: FigmaTypeStyle['hyperlink'] | undefined): string | undefined {
  const url = str(link?.url, 2000);
  if (!url) return undefined;
  return /^(https?:\/\/|mailto:|tel:)/i.test(url.trim()) ? url.trim() : undefined;
}

/** Collects what an import reports for the theme: colours and fonts with their uses. */
class ThemeReport {
  private readonly colors = new Map<string, { uses: number; usage: Set<'text' | 'fill' | 'stroke'> }>();
  private readonly fonts = new Map<string, { weights: Set<number>; styles: Set<string> }>();

  color(paints: unknown, usage: 'text' | 'fill' | 'stroke'): void {
    for (const p of visiblePaints(paints)) {
      if (p.type !== 'SOLID') continue;
      const hex = hexOf(p.color, p.opacity);
      if (!hex || this.colors.size >= 500) continue;
      const entry = this.colors.get(hex) ?? { uses: 0, usage: new Set() };
      entry.uses++;
      entry.usage.add(usage);
      this.colors.set(hex, entry);
    }
  }

  font(style: FigmaTypeStyle | undefined, styleName: string | undefined): void {
    const family = str(style?.fontFamily);
    if (!family || this.fonts.size >= 100) return;
    const entry = this.fonts.get(family) ?? { weights: new Set(), styles: new Set() };
    const weight = num(style?.fontWeight);
    if (weight !== undefined) entry.weights.add(Math.round(weight));
    if (styleName && entry.styles.size < 50) entry.styles.add(styleName);
    this.fonts.set(family, entry);
  }

  result(): Pick<MappedDesign, 'fonts' | 'colors'> {
    return {
      colors: [...this.colors]
        .sort((a, b) => b[1].uses - a[1].uses || a[0].localeCompare(b[0]))
        .map(([hex, e]) => ({ hex, uses: e.uses, usage: [...e.usage].sort() })),
      fonts: [...this.fonts]
        .sort((a, b) => a[0].localeCompare(b[0]))
        .map(([family, e]) => ({
          family,
          weights: [...e.weights].sort((a, b) => a - b),
          styles: [...e.styles].sort(),
        })),
    };
  }
}

/** The heading level a text gets: from its text style's name first (`Heading 2`, `H1`, `Title`), else its size. */
function textTag(style: FigmaTypeStyle | undefined, styleName: string | undefined): string {
  if (styleName) {
    const level = HEADING_STYLE.exec(styleName);
    if (level) return `h${level[1]}`;
    if (/display|hero|headline/i.test(styleName)) return 'h1';
    if (/body|paragraph|text|caption|label|small/i.test(styleName)) return 'p';
  }
  const size = num(style?.fontSize) ?? 16;
  if (size >= 40) return 'h1';
  if (size >= 32) return 'h2';
  if (size >= 26) return 'h3';
  if (size >= 22) return 'h4';
  return 'p';
}

/** The marks of one run of text, outermost first: link, bold, italic, underline. */
function marksOf(run: FigmaTypeStyle, base: FigmaTypeStyle): Array<{ type: string; href?: string }> {
  const marks: Array<{ type: string; href?: string }> = [];
  const href = safeHref(run.hyperlink);
  if (href && href !== safeHref(base.hyperlink)) marks.push({ type: 'a', href });
  const weight = num(run.fontWeight) ?? num(base.fontWeight) ?? 400;
  if (weight >= 600 && weight > (num(base.fontWeight) ?? 400)) marks.push({ type: 'strong' });
  if (run.italic === true && base.italic !== true) marks.push({ type: 'em' });
  if (run.textDecoration === 'UNDERLINE' && base.textDecoration !== 'UNDERLINE') marks.push({ type: 'u' });
  return marks;
}

/** Text with line breaks as inline nodes (`text`, `br`). */
function inlineText(text: string, out: PageNode[]): void {
  text.split(/\r\n|\r|\n|\u2028/).forEach((line, i) => {
    if (i > 0) out.push({ type: 'br' });
    if (line) out.push({ type: 'text', text: line });
  });
}

/** A TEXT node's characters as inline children: runs of `characterStyleOverrides` become marks. */
function textContent(node: FigmaNode, base: FigmaTypeStyle): { text?: string; children?: PageNode[] } {
  const characters = (str(node.characters, MAPPING_LIMITS.textChars) ?? '').trim();
  const overrides = Array.isArray(node.characterStyleOverrides) ? node.characterStyleOverrides : [];
  const table = node.styleOverrideTable && typeof node.styleOverrideTable === 'object' ? node.styleOverrideTable : {};
  const runs: Array<{ text: string; marks: Array<{ type: string; href?: string }> }> = [];
  const raw = str(node.characters, MAPPING_LIMITS.textChars) ?? '';
  const lead = raw.length - raw.trimStart().length;
  let i = 0;
  while (i < characters.length) {
    const key = String(overrides[i + lead] ?? 0);
    let j = i + 1;
    while (j < characters.length && String(overrides[j + lead] ?? 0) === key) j++;
    const style = key !== '0' && Object.hasOwn(table, key) ? table[key] : undefined;
    runs.push({ text: characters.slice(i, j), marks: style && typeof style === 'object' ? marksOf(style, base) : [] });
    i = j;
  }
  if (runs.every((r) => r.marks.length === 0) && !/[\r\n\u2028]/.test(characters)) return { text: characters };
  const children: PageNode[] = [];
  for (const run of runs) {
    const inner: PageNode[] = [];
    inlineText(run.text, inner);
    let nodes = inner;
    for (const mark of [...run.marks].reverse())
      nodes = [{ type: mark.type, ...(mark.href ? { props: { href: mark.href } } : {}), children: nodes }];
    children.push(...nodes);
  }
  return { children };
}

/** The layout of a frame as CSS the node-tree rules allow (flex, gap, padding, alignment, background). */
function containerStyle(node: FigmaNode): { style: string; className: string | undefined } {
  const rules: string[] = [];
  const mode = node.layoutMode;
  let className: string | undefined;
  if (mode === 'HORIZONTAL' || mode === 'VERTICAL') {
    rules.push('display:flex', `flex-direction:${mode === 'HORIZONTAL' ? 'row' : 'column'}`);
    if (mode === 'HORIZONTAL') className = 'columns';
    if (node.layoutWrap === 'WRAP') rules.push('flex-wrap:wrap');
    const gap = num(node.itemSpacing);
    if (gap !== undefined && gap > 0) rules.push(`gap:${px(gap)}`);
    const justify = str(node.primaryAxisAlignItems);
    if (justify && Object.hasOwn(ALIGN, justify) && justify !== 'MIN') rules.push(`justify-content:${ALIGN[justify]}`);
    const align = str(node.counterAxisAlignItems);
    if (align && Object.hasOwn(ALIGN, align) && align !== 'MIN') rules.push(`align-items:${ALIGN[align]}`);
  }
  const pad = [node.paddingTop, node.paddingRight, node.paddingBottom, node.paddingLeft].map((v) => num(v) ?? 0);
  if (pad.some((v) => v > 0)) rules.push(`padding:${pad.map(px).join(' ')}`);
  const solid = visiblePaints(node.fills).find((p) => p.type === 'SOLID');
  const background = solid && hexOf(solid.color, solid.opacity);
  if (background) rules.push(`background-color:${background}`);
  return { style: rules.join(';'), className };
}

/** Children in reading order: auto-layout keeps Figma's order, free layout is read top to bottom, left to right. */
function orderedChildren(node: FigmaNode): FigmaNode[] {
  const children = (Array.isArray(node.children) ? node.children : []).filter(
    (c) => c && typeof c === 'object' && c.visible !== false,
  );
  if (node.layoutMode === 'HORIZONTAL' || node.layoutMode === 'VERTICAL') return children;
  const box = (c: FigmaNode) => ({ y: num(c.absoluteBoundingBox?.y) ?? 0, x: num(c.absoluteBoundingBox?.x) ?? 0 });
  return [...children].sort((a, b) => box(a).y - box(b).y || box(a).x - box(b).x);
}

/** The text below a node (a button's label), depth first, bounded. */
function labelOf(node: FigmaNode): { text: string; href?: string } {
  const stack: FigmaNode[] = [node];
  let seen = 0;
  while (stack.length && seen++ < 500) {
    const n = stack.pop()!;
    if (n.type === 'TEXT' && typeof n.characters === 'string' && n.characters.trim())
      return { text: n.characters.trim().slice(0, 200), href: safeHref(n.style?.hyperlink) };
    if (Array.isArray(n.children)) for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]);
  }
  return { text: str(node.name)?.trim() || 'Button' };
}

const exportFormat = (node: FigmaNode): 'png' | 'svg' | undefined => {
  const first = Array.isArray(node.exportSettings) ? node.exportSettings[0] : undefined;
  if (!first) return undefined;
  return String(first.format).toUpperCase() === 'SVG' ? 'svg' : 'png';
};

/**
 * Maps a Figma node (a frame, or a page's canvas) to the page tree. Walked iteratively: a hostile
 * answer nesting 10,000 deep costs a warning, not the stack.
 */
export function mapDesign(root: FigmaNode, styles: Record<string, FigmaStyleMeta> | undefined): MappedDesign {
  const warnings: ImportWarning[] = [];
  const images: PendingImage[] = [];
  const theme = new ThemeReport();
  let dropped = 0;
  let cut: ImportWarning | undefined;
  const warn = (code: string, node: FigmaNode | null, message: string) => {
    const warning = { code, figmaNodeId: str(node?.id) ?? null, nodeName: str(node?.name) ?? null, message };
    if ((code === 'TOO_DEEP' || code === 'TOO_MANY_NODES') && !cut) cut = warning;
    if (warnings.length < MAPPING_LIMITS.warnings) warnings.push(warning);
    else dropped++;
  };
  const styleName = (node: FigmaNode, kind: string): string | undefined => {
    const id = node.styles && typeof node.styles === 'object' ? node.styles[kind] : undefined;
    const meta = typeof id === 'string' && styles && Object.hasOwn(styles, id) ? styles[id] : undefined;
    return str(meta?.name);
  };

  const content: PageNode = { type: 'div', children: [] };
  const stack: Array<{ node: FigmaNode; into: PageNode[]; depth: number }> = [
    { node: root, into: content.children!, depth: 1 },
  ];
  let made = 1;
  let visited = 0;
  let cutDeep = false;
  let cutMany = false;
  while (stack.length) {
    const { node, into, depth } = stack.pop()!;
    if (!node || typeof node !== 'object' || typeof node.type !== 'string') continue;
    if (++visited > MAPPING_LIMITS.figmaNodes) {
      if (!cutMany)
        warn('TOO_MANY_NODES', node, `More than ${MAPPING_LIMITS.figmaNodes} Figma nodes: the rest is left out`);
      cutMany = true;
      break;
    }
    if (made >= MAPPING_LIMITS.nodes) {
      if (!cutMany)
        warn(
          'TOO_MANY_NODES',
          node,
          `The page would have more than ${MAPPING_LIMITS.nodes} nodes: the rest is left out`,
        );
      cutMany = true;
      continue;
    }
    if (depth > MAPPING_LIMITS.depth) {
      if (!cutDeep) warn('TOO_DEEP', node, `Layers nested deeper than ${MAPPING_LIMITS.depth} levels are left out`);
      cutDeep = true;
      continue;
    }
    const name = str(node.name) ?? '';
    const fills = visiblePaints(node.fills);
    const imageFill = fills.find((p) => p.type === 'IMAGE' && typeof p.imageRef === 'string');
    const alt = DEFAULT_NAME.test(name.trim()) ? '' : name.trim().slice(0, 200);
    const pushImage = (kind: 'fill' | 'render', format: 'png' | 'svg', imageRef?: string) => {
      const img: PageNode = { type: 'img', props: { src: '', alt } };
      into.push(img);
      made++;
      images.push({ figmaNodeId: String(node.id), name, kind, imageRef, format, node: img, siblings: into });
    };

    if (node.type === 'TEXT') {
      const base = node.style && typeof node.style === 'object' ? node.style : {};
      const textStyle = styleName(node, 'text');
      theme.font(base, textStyle);
      theme.color(node.fills, 'text');
      if (node.styleOverrideTable && typeof node.styleOverrideTable === 'object')
        for (const s of Object.values(node.styleOverrideTable).slice(0, 50))
          if (s && typeof s === 'object') theme.font({ ...base, ...s }, textStyle);
      const body = textContent(node, base);
      if (!body.text && !body.children?.length) continue;
      const href = safeHref(base.hyperlink);
      const tag = href ? 'a' : textTag(base, textStyle);
      const align = str(base.textAlignHorizontal);
      const props: Record<string, unknown> = {};
      if (href) props.href = href;
      if (align === 'CENTER' || align === 'RIGHT') props.style = `text-align:${align.toLowerCase()}`;
      into.push({ type: tag, ...(Object.keys(props).length ? { props } : {}), ...body });
      made += 1 + (body.children?.length ?? 0);
      continue;
    }

    if (BUTTON_NAME.test(name) && (CONTAINERS.has(node.type) || SHAPES.has(node.type))) {
      const label = labelOf(node);
      theme.color(node.fills, 'fill');
      into.push({ type: 'a', props: { href: label.href ?? '#', className: 'button' }, text: label.text });
      made++;
      continue;
    }

    const render = exportFormat(node);
    if (render && (SHAPES.has(node.type) || node.type === 'GROUP' || node.type === 'FRAME')) {
      pushImage('render', render);
      continue;
    }

    if (imageFill && (SHAPES.has(node.type) || !Array.isArray(node.children) || node.children.length === 0)) {
      pushImage('fill', 'png', imageFill.imageRef);
      continue;
    }

    if (CONTAINERS.has(node.type)) {
      theme.color(node.fills, 'fill');
      theme.color(node.strokes, 'stroke');
      if (imageFill) warn('BACKGROUND_IMAGE', node, `The background image of "${name}" is not imported`);
      const children = orderedChildren(node);
      if (
        node.type === 'INSTANCE' ||
        node.type === 'DOCUMENT' ||
        node.type === 'CANVAS' ||
        node.type === 'COMPONENT_SET'
      ) {
        // An instance becomes its children (its main component is not a snippet yet); pages too.
        for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i], into, depth });
        continue;
      }
      if (children.length === 0 && !containerStyle(node).style) continue;
      const { style, className } = containerStyle(node);
      if (node.type === 'GROUP' || !node.layoutMode || node.layoutMode === 'NONE') {
        if (node.type !== 'GROUP' && children.length > 1)
          warn('FREE_LAYOUT', node, `"${name}" has no auto-layout: its layers are stacked top to bottom`);
      }
      const props: Record<string, unknown> = {};
      if (style) props.style = style;
      if (className) props.className = className;
      const container: PageNode = {
        type: depth === 1 ? 'section' : 'div',
        ...(Object.keys(props).length ? { props } : {}),
        children: [],
      };
      into.push(container);
      made++;
      for (let i = children.length - 1; i >= 0; i--)
        stack.push({ node: children[i], into: container.children!, depth: depth + 1 });
      continue;
    }

    if (node.type === 'LINE') {
      into.push({ type: 'hr' });
      made++;
      theme.color(node.strokes, 'stroke');
      continue;
    }
    if (SHAPES.has(node.type)) {
      theme.color(node.fills, 'fill');
      warn(
        'SHAPE_SKIPPED',
        node,
        `The ${node.type.toLowerCase()} "${name}" is skipped; mark it for export to import it as an image`,
      );
      continue;
    }
    warn('UNSUPPORTED_NODE', node, `The ${node.type.toLowerCase()} "${name}" is skipped`);
  }
  if (dropped > 0)
    warnings.push({
      code: 'MORE_WARNINGS',
      figmaNodeId: null,
      nodeName: null,
      message: `${dropped} more warnings left out`,
    });
  return { content, images, warnings, ...(cut ? { cut } : {}), ...theme.result() };
}
