import { badRequest, type ChangeActor } from '../../../kernel/index.ts';
import { imageCallerOf } from './actor.ts';
import type { AssetRow } from '../model.ts';
import { extensionOf } from './sniff.ts';
import type { ImageProcessor, TransformOptions } from './images.ts';
import { isImageType, type LibraryService } from './library.ts';
import { Readable } from 'node:stream';
import { receiveToTemp } from './intake.ts';
import { normaliseFilename } from './paths.ts';

export interface TransformRequest extends TransformOptions {
  saveAs: 'version' | 'copy';
  /** File name of the edited copy; default `<name>-edited.<ext>` in the same folder. */
  filename?: string;
}

/**
 * `dam/transform`: rotate, crop, resize, re-encode an asset, saved as a new version of the same asset
 * (same id, uuid and path; the old version's files are removed) or as an edited copy next to it.
 */
export async function transformAsset(
  library: LibraryService,
  images: ImageProcessor,
  row: AssetRow,
  req: TransformRequest,
  actor: ChangeActor,
  tmpDir: string,
): Promise<AssetRow> {
  if (!isImageType(row.mime_type)) throw badRequest('Only images can be transformed', 'id', 'NOT_AN_IMAGE');
  if (
    req.crop &&
    row.width &&
    row.height &&
    (req.crop.left + req.crop.width > row.width || req.crop.top + req.crop.height > row.height) &&
    !req.rotate
  ) {
    throw badRequest('crop lies outside the image', 'crop', 'INVALID_CROP');
  }
  const out = await library.withLocalCopy(row, (file) =>
    images.resize(file, req, row.mime_type.split('/')[1], { caller: imageCallerOf(actor) }),
  );
  const received = await receiveToTemp(Readable.from([out.data]), { maxBytes: Number.MAX_SAFE_INTEGER, tmpDir });
  try {
    const ext = extensionOf(`image/${out.format}`);
    const base = row.filename.replace(/\.[^.]+$/, '');
    const filename =
      req.saveAs === 'copy'
        ? req.filename !== undefined
          ? normaliseFilename(req.filename)
          : `${base}-edited.${ext}`
        : row.filename;
    return await library.storeReceived(received, {
      folder: row.folder,
      filename,
      visibility: row.visibility,
      metadata: req.saveAs === 'copy' ? { ...row.metadata, editedFrom: row.id } : undefined,
      overwrite: req.saveAs === 'version',
      actor,
    });
  } finally {
    await received.discard();
  }
}
