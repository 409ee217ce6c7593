/** The warning codes of a documentation site (README "Warnings"). */
export type DocsWarningCode =
  | 'BROKEN_LINK'
  | 'MISSING_IMAGE'
  | 'LINK_TO_PRIVATE'
  | 'DUPLICATE_PATH'
  | 'BAD_FRONT_MATTER'
  | 'NAV_UNKNOWN_PATH'
  | 'FILE_TOO_LARGE'
  | 'TOO_MANY_FILES';

export interface DocsWarning {
  code: DocsWarningCode;
  /** The document (or file of the folder) it is about. */
  path: string;
  line?: number;
  target?: string;
  message: string;
}

export type Visibility = 'public' | 'private';

/** A navigation entry: a document (`path`), a group (`children`), or both. */
export interface NavItem {
  title: string;
  path?: string;
  children?: NavItem[];
}
