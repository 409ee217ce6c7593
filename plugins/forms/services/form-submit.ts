import { SYSTEM, badRequest, notFound, type Db, type ServiceMap, type Tx } from '../../../kernel/index.ts';
import type { PublishedFormSource } from '../ports.ts';
import type { FormNotifications } from './notify.ts';

type StagedUpload = NonNullable<Awaited<ReturnType<ServiceMap['assetLibrary']['stagedUpload']>>>;

const isUploadRef = (v: unknown): v is { uploadId: string } =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length === 1 &&
  typeof (v as { uploadId?: unknown }).uploadId === 'string';

/**
 * `POST /public/forms/:classId/submit`: one unpublished object (actor `system`), each `{ uploadId }`
 * value attached to the asset library first, all in one transaction: a refused object leaves no
 * asset row, and the asset plugin removes the stored copy when the transaction rolls back.
 */
export class FormSubmissions {
  constructor(
    private readonly deps: {
      db: Db;
      assets: ServiceMap['assetLibrary'];
      objects: ServiceMap['dataObjects'];
      /** Registry items: the websites' upload rules (none without the content plugin). */
      sites: ServiceMap['websiteUploadRules'];
      /** Registry items: which classes a published form names (none without the content plugin: no submit). */
      forms: readonly PublishedFormSource[];
      /** The `notify` block: a mail queued in the same transaction when an author saved that block. */
      notifications: FormNotifications;
    },
  ) {}

  async submit(
    classId: string,
    body: { attributes: Record<string, unknown>; locale?: string; notify?: unknown },
  ): Promise<{ id: string; attachments: Array<{ field: string; assetId: string }> }> {
    return this.deps.db.transaction(async (trx) => {
      // First: nothing of a submit for a class no visitor was shown a form of is looked at or kept.
      if (!(await this.formPublished(classId, trx)))
        throw notFound('No published form for this class', 'FORM_NOT_FOUND');
      const attributes: Record<string, unknown> = {};
      const staged: Array<{ field: string; upload: StagedUpload }> = [];
      for (const [field, value] of Object.entries(body.attributes)) {
        if (!isUploadRef(value)) {
          attributes[field] = value;
          continue;
        }
        const named = `attributes.${field}`;
        const upload = await this.deps.assets.stagedUpload(value.uploadId, trx);
        if (!upload)
          throw Object.assign(notFound('Unknown, expired or already attached upload', 'UPLOAD_NOT_FOUND'), {
            field: named,
          });
        if (upload.fieldId !== field)
          throw badRequest(`The upload was asked for the field ${upload.fieldId}`, named, 'UPLOAD_FIELD_MISMATCH');
        staged.push({ field, upload });
      }
      await this.checkFileCount(staged.map((s) => s.upload));
      const attachments: Array<{ field: string; assetId: string }> = [];
      for (const { field, upload } of staged) {
        const asset = await this.deps.assets.attachFormUpload(
          { uploadId: upload.uploadId, folder: upload.folder, visibility: upload.visibility },
          trx,
        );
        attributes[field] = asset.id;
        attachments.push({ field, assetId: asset.id });
      }
      const created = await this.deps.objects
        .create(
          {
            actor: SYSTEM,
            changeActor: { type: 'system', id: null },
            trx,
            // A visitor's asset field holds only what this submission uploaded, never a library file's name.
            allowedAssets: new Set(attachments.map((a) => a.assetId)),
          },
          { classId, locale: body.locale, published: false, attributes },
        )
        .catch((err: { statusCode?: number; field?: string }) => {
          // The class is named by the path: an unknown one is a 404 of this route.
          throw err.statusCode === 400 && err.field === 'classId'
            ? notFound('Class not found', 'CLASS_NOT_FOUND')
            : err;
        });
      await this.deps.notifications.queue(classId, body.notify, { id: created.id, attributes }, trx);
      return { id: created.id, attachments };
    });
  }

  /** Whether a form block of a published page (or layout) names the class, as some source says. */
  private async formPublished(classId: string, trx: Tx): Promise<boolean> {
    for (const source of this.deps.forms) if (await source.publishesForm(classId, trx)) return true;
    return false;
  }

  /** The website's `maxFilesPerSubmit` (its upload settings, content plugin); unchecked without that plugin. */
  private async checkFileCount(uploads: StagedUpload[]): Promise<void> {
    if (!this.deps.sites.length) return;
    const perSite = new Map<string, number>();
    for (const u of uploads) perSite.set(u.websiteId, (perSite.get(u.websiteId) ?? 0) + 1);
    for (const [websiteId, count] of perSite) {
      const settings = await this.uploadSettings(websiteId);
      const max = settings?.maxFilesPerSubmit ?? 0;
      if (count > max)
        throw badRequest(`This website accepts at most ${max} files per submission`, 'attributes', 'TOO_MANY_FILES');
    }
  }

  /** The first registry item that holds the website answers. */
  private async uploadSettings(websiteId: string) {
    for (const source of this.deps.sites) {
      const settings = await source.uploadSettings(websiteId);
      if (settings) return settings;
    }
    return undefined;
  }
}
