/**
 * The parts of the Figma REST API's node format the import reads (see the public REST API
 * reference, `Node`, `Paint`, `TypeStyle`). Everything arrives from outside: each member is checked
 * where it is used, never trusted to have its type.
 */
export interface FigmaColor {
  r: number;
  g: number;
  b: number;
  a?: number;
}

export interface FigmaPaint {
  type: string;
  visible?: boolean;
  opacity?: number;
  color?: FigmaColor;
  imageRef?: string;
  scaleMode?: string;
}

export interface FigmaTypeStyle {
  fontFamily?: string;
  fontWeight?: number;
  fontSize?: number;
  italic?: boolean;
  textDecoration?: string;
  textAlignHorizontal?: string;
  hyperlink?: { type?: string; url?: string };
  fills?: FigmaPaint[];
}

export interface FigmaNode {
  id: string;
  name?: string;
  type: string;
  visible?: boolean;
  children?: FigmaNode[];
  fills?: FigmaPaint[];
  strokes?: FigmaPaint[];
  exportSettings?: Array<{ format?: string }>;
  layoutMode?: string;
  layoutWrap?: string;
  itemSpacing?: number;
  paddingLeft?: number;
  paddingRight?: number;
  paddingTop?: number;
  paddingBottom?: number;
  primaryAxisAlignItems?: string;
  counterAxisAlignItems?: string;
  absoluteBoundingBox?: { x: number; y: number; width: number; height: number };
  characters?: string;
  style?: FigmaTypeStyle;
  characterStyleOverrides?: number[];
  styleOverrideTable?: Record<string, FigmaTypeStyle>;
  styles?: Record<string, string>;
  componentId?: string;
}

export interface FigmaStyleMeta {
  name?: string;
  styleType?: string;
}

/** `GET /v1/files/:key`. */
export interface FigmaFileAnswer {
  name?: string;
  document?: FigmaNode;
  styles?: Record<string, FigmaStyleMeta>;
}

/** `GET /v1/files/:key/nodes?ids=`. */
export interface FigmaNodesAnswer {
  name?: string;
  nodes?: Record<string, { document?: FigmaNode; styles?: Record<string, FigmaStyleMeta> } | null>;
}
