import type { DocumentKind, EditedDocument } from './documents.ts';

/** What differs between the kinds of document the editor opens (the content plugin's rules). */
export interface KindInfo {
  /** In sentences: "Editing template: Hero". */
  label: string;
  /** The key that allows saving (the content plugin's README: its key table). */
  editKey: string;
  /** The label of the title field. */
  nameLabel: string;
  /** What the outline calls the tree's root. */
  rootName: string;
  /** The API keeps versions (the History panel). */
  versions: boolean;
  /** The API stores a thumbnail (`PUT .../thumbnail`). */
  thumbnails: boolean;
  /** The dashboard's screen of the document. */
  dashboardUrl(doc: Pick<EditedDocument, 'id' | 'websiteId'>): string;
}

export const KINDS: Record<DocumentKind, KindInfo> = {
  pages: {
    label: 'page',
    editKey: 'pages:edit',
    nameLabel: 'Page title',
    rootName: 'Page',
    versions: true,
    thumbnails: true,
    dashboardUrl: (doc) => `/admin/pages/${doc.id}`,
  },
  snippets: {
    label: 'snippet',
    editKey: 'snippets:edit',
    nameLabel: 'Snippet name',
    rootName: 'Snippet',
    versions: true,
    thumbnails: true,
    dashboardUrl: (doc) => `/admin/snippets/${doc.id}`,
  },
  templates: {
    label: 'template',
    editKey: 'templates:edit',
    nameLabel: 'Template name',
    rootName: 'Template',
    versions: false,
    thumbnails: false,
    dashboardUrl: (doc) => `/admin/templates/${doc.id}`,
  },
  layouts: {
    label: 'layout',
    editKey: 'websites:edit',
    nameLabel: 'Layout name',
    rootName: 'Region',
    versions: false,
    thumbnails: false,
    dashboardUrl: (doc) => `/admin/websites/${doc.websiteId}/layouts/${doc.id}`,
  },
};
