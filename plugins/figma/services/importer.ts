import { createHash } from 'node:crypto';
import {
  type Actor,
  type Db,
  forbidden,
  HttpError,
  isHttpError,
  type Logger,
  type PermissionRegistry,
  type ServiceMap,
  type Tx,
  unavailable,
} from '../../../kernel/index.ts';
import type { DesignImportPage, DesignImportTarget } from '../ports.ts';
import { type FigmaClient, ImageRefusedError } from './figma-client.ts';
import type { FigmaNode, FigmaStyleMeta } from './figma-types.ts';
import { figmaTarget } from './figma-link.ts';
import { type ImportWarning, type MappedDesign, mapDesign, type PendingImage } from './mapping.ts';
import type { FigmaSettingsService } from './settings.ts';

export interface ImportInput {
  fileKey?: string;
  nodeId?: string;
  url?: string;
  websiteId: string;
  locale: string;
  path?: string;
  title?: string;
  create?: boolean;
}

export interface ImportResult extends Omit<MappedDesign, 'images'> {
  assets: Array<{ id: string; path: string; url: string; figmaNodeId: string }>;
  source: { fileKey: string; nodeId: string | null; name: string };
  /** The frames directly on the imported page (a whole-file import), to pick one of; empty for a frame. */
  frames: Array<{ id: string; name: string }>;
  page?: DesignImportPage;
}

/** Node types offered as frames to pick from a page. */
const FRAME_TYPES = new Set(['FRAME', 'SECTION', 'COMPONENT', 'COMPONENT_SET', 'INSTANCE', 'GROUP']);

/** The library folder an import's images go to. */
const FOLDER = 'figma';
const slug = (text: string) =>
  text
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'page';

/**
 * `POST /figma/import`: reads a file or frame through the Figma API, maps it to a page tree, stores
 * its images in the asset library and, with `create`, makes a draft page; the tree passes the page
 * save's checks first. Images and page commit together or not at all.
 */
export class FigmaImporter {
  constructor(
    private readonly deps: {
      db: Db;
      client: FigmaClient;
      settings: FigmaSettingsService;
      permissions: PermissionRegistry;
      assetLibrary: ServiceMap['assetLibrary'];
      targets: readonly DesignImportTarget[];
      maxImages: number;
      log: Logger;
    },
  ) {}

  private target(): DesignImportTarget {
    const target = this.deps.targets[0];
    if (!target) throw unavailable('No plugin holds pages in this process', 'PAGES_UNAVAILABLE');
    return target;
  }

  async import(actor: Actor, input: ImportInput): Promise<ImportResult> {
    const { fileKey, nodeId } = figmaTarget(input);
    const target = this.target();
    await target.checkTarget(input.websiteId, input.locale);
    const token = await this.deps.settings.token();
    if (!token)
      throw new HttpError(
        409,
        'FIGMA_TOKEN_MISSING',
        'No Figma access token is set: PUT /figma/settings { token } first',
      );

    const { root, styles, name } = await this.read(token, fileKey, nodeId);
    const mapped = mapDesign(root, styles);
    // A tree cut short would be a page with parts silently missing: refused whole, nothing stored.
    if (mapped.cut)
      throw new HttpError(
        422,
        'FIGMA_DESIGN_TOO_LARGE',
        `${mapped.cut.message} (at "${mapped.cut.nodeName ?? mapped.cut.figmaNodeId ?? '?'}"): nothing was imported; import a smaller frame (a link with node-id, or nodeId)`,
      );
    const frames =
      !nodeId && Array.isArray(root.children)
        ? root.children
            .filter((c) => c && typeof c === 'object' && FRAME_TYPES.has(String(c.type)) && c.visible !== false)
            .slice(0, 200)
            .map((c) => ({ id: String(c.id).slice(0, 200), name: String(c.name ?? c.id).slice(0, 200) }))
        : [];
    const warnings = [...mapped.warnings];
    if (mapped.images.length > 0 && !this.deps.permissions.allows(actor, 'assets:upload'))
      throw forbidden(
        `The design has ${mapped.images.length} images: importing them into the asset library needs assets:upload`,
        'ASSETS_UPLOAD_REQUIRED',
      );
    const downloads = await this.download(token, fileKey, mapped.images, warnings);
    // The same checks as a page saved through the API, before anything is stored.
    await target.checkContent(mapped.content);

    const title = input.title ?? name.slice(0, 200);
    const path = input.path ?? `/${slug(name)}`;
    return this.deps.db.transaction(async (trx) => {
      const assets = await this.store(actor, fileKey, downloads, trx);
      const page = input.create
        ? await target.createDraft(
            actor,
            { websiteId: input.websiteId, locale: input.locale, path, title, content: mapped.content },
            trx,
          )
        : undefined;
      return {
        content: mapped.content,
        assets,
        fonts: mapped.fonts,
        colors: mapped.colors,
        warnings,
        source: { fileKey, nodeId, name },
        frames,
        ...(page ? { page } : {}),
      };
    });
  }

  /** The node to import: the frame `nodeId`, or the file's first page. */
  private async read(
    token: string,
    fileKey: string,
    nodeId: string | null,
  ): Promise<{ root: FigmaNode; styles: Record<string, FigmaStyleMeta> | undefined; name: string }> {
    const isNode = (n: unknown): n is FigmaNode =>
      typeof n === 'object' && n !== null && typeof (n as FigmaNode).type === 'string';
    if (nodeId) {
      const answer = await this.deps.client.nodes(token, fileKey, nodeId);
      const entry =
        answer?.nodes && typeof answer.nodes === 'object' && Object.hasOwn(answer.nodes, nodeId)
          ? answer.nodes[nodeId]
          : null;
      if (!entry || !isNode(entry.document))
        throw new HttpError(404, 'FIGMA_NODE_NOT_FOUND', `File ${fileKey} has no node ${nodeId}`);
      return {
        root: entry.document,
        styles: entry.styles,
        name: String(entry.document.name ?? answer.name ?? fileKey),
      };
    }
    const file = await this.deps.client.file(token, fileKey);
    const pages = Array.isArray(file?.document?.children) ? file.document.children : [];
    const first = pages.find(isNode);
    if (!first) throw new HttpError(502, 'FIGMA_UPSTREAM_FAILED', `Figma's answer for file ${fileKey} has no page`);
    return { root: first, styles: file.styles, name: String(file.name ?? first.name ?? fileKey) };
  }

  /** Image URLs from Figma, then their bytes; what cannot be had is a warning and leaves the tree. */
  private async download(
    token: string,
    fileKey: string,
    images: PendingImage[],
    warnings: ImportWarning[],
  ): Promise<Array<{ image: PendingImage; bytes: Buffer }>> {
    const drop = (image: PendingImage, code: string, message: string) => {
      const at = image.siblings.indexOf(image.node);
      if (at >= 0) image.siblings.splice(at, 1);
      warnings.push({ code, figmaNodeId: image.figmaNodeId, nodeName: image.name, message });
    };
    const kept = images.slice(0, this.deps.maxImages);
    for (const image of images.slice(this.deps.maxImages))
      drop(
        image,
        'TOO_MANY_IMAGES',
        `More than FIGMA_MAX_IMAGES (${this.deps.maxImages}) images: "${image.name}" is left out`,
      );
    if (kept.length === 0) return [];
    const urls = new Map<PendingImage, string | undefined>();
    if (kept.some((i) => i.kind === 'fill')) {
      const fills = await this.deps.client.imageFills(token, fileKey);
      for (const image of kept) if (image.kind === 'fill') urls.set(image, fills.get(image.imageRef ?? ''));
    }
    for (const format of ['png', 'svg'] as const) {
      const wanted = kept.filter((i) => i.kind === 'render' && i.format === format);
      if (wanted.length === 0) continue;
      const rendered = await this.deps.client.renders(
        token,
        fileKey,
        [...new Set(wanted.map((i) => i.figmaNodeId))],
        format,
      );
      for (const image of wanted) urls.set(image, rendered.get(image.figmaNodeId));
    }
    const out: Array<{ image: PendingImage; bytes: Buffer }> = [];
    for (const image of kept) {
      const url = urls.get(image);
      if (!url) {
        drop(image, 'IMAGE_MISSING', `Figma gave no image for "${image.name}"`);
        continue;
      }
      try {
        out.push({ image, bytes: await this.deps.client.download(url) });
      } catch (err) {
        // Figma's answer points the server somewhere it must not go: the whole answer is suspect.
        if (err instanceof ImageRefusedError)
          throw new HttpError(
            502,
            'FIGMA_IMAGE_REFUSED',
            `Figma's answer gives an image URL for "${image.name}" that is refused (${err.message}); nothing was imported`,
          );
        if (!isHttpError(err)) throw err;
        drop(image, 'IMAGE_FAILED', `The image of "${image.name}" is not imported: ${err.message}`);
      }
    }
    return out;
  }

  /** Stores each image once (its path carries a hash of its bytes, so importing again reuses it). */
  private async store(
    actor: Actor,
    fileKey: string,
    downloads: Array<{ image: PendingImage; bytes: Buffer }>,
    trx: Tx,
  ): Promise<ImportResult['assets']> {
    const assets: ImportResult['assets'] = [];
    const changeActor =
      actor.type === 'user' ? { type: 'user' as const, id: actor.id } : { type: 'import' as const, id: null };
    for (const { image, bytes } of downloads) {
      const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
      const folder = `${FOLDER}/${fileKey}`;
      const filename = `${slug(image.name)}-${hash}.${image.format}`;
      const path = `${folder}/${filename}`;
      const ref =
        (await this.deps.assetLibrary.resolve([path], trx)).get(path) ??
        (await this.deps.assetLibrary.storeFile(
          { bytes, folder, filename, visibility: 'public', actor: changeActor },
          trx,
        ));
      image.node.props = { ...image.node.props, src: ref.url };
      assets.push({ id: ref.id, path: ref.path, url: ref.url, figmaNodeId: image.figmaNodeId });
    }
    return assets;
  }
}
