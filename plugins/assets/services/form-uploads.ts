import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import {
  HttpError,
  badRequest,
  forbidden,
  inTransaction,
  notFound,
  tooManyRequests,
  unavailable,
  type Clock,
  type Db,
  type Logger,
  type Tx,
} from '../../../kernel/index.ts';
import { keys, type AssetRow, type Visibility } from '../model.ts';
import type { ObjectStorage } from '../storage/object-storage.ts';
import * as store from '../store/form-upload-store.ts';
import type { AttachFormUploadInput, StagedUpload } from '../ports.ts';
import { CHECKED_TYPES, type UploadContentCheck } from './content-check.ts';
import { receiveToTemp, tooLarge, type ReceivedFile } from './intake.ts';
import type { LibraryService } from './library.ts';
import { MAX_SEGMENT_LENGTH, normaliseFilename, normaliseFolder } from './paths.ts';
import { sniffType, type SniffedType } from './sniff.ts';
import type { UploadTickets } from './tickets.ts';
import type { UploadRules } from './upload-rules.ts';

/** Never accepted from the public, whatever a website allows: markup, scripts, programs, unknown bytes. */
const NEVER =
  /^(text\/html|image\/svg\+xml|application\/xml|text\/x-script|application\/x-executable|application\/octet-stream)$/;
const CHECKED = new Set(CHECKED_TYPES);
const DAY_MS = 86_400_000;
/** `<first 8 characters of the upload id>-` before the visitor's file name in the library. */
const ATTACH_PREFIX_LENGTH = 9;

export interface IntentInput {
  fieldId: string;
  filename: string;
  size: number;
  websiteId?: string;
  origin?: string;
  referer?: string;
}

/**
 * Public form uploads: intent (signed ticket), receipt of the bytes (staged), attach to the library
 * in the form submit's transaction, and removal of staged bytes never attached.
 */
export class FormUploads {
  constructor(
    private readonly deps: {
      db: Db;
      clock: Clock;
      storage: ObjectStorage;
      library: LibraryService;
      log: Logger;
      tickets: UploadTickets | null;
      sites: UploadRules;
      contentCheck: UploadContentCheck;
      maxFileBytes: number;
      ticketTtlSeconds: number;
      stagingTtlSeconds: number;
      tmpDir: string;
      uploadUrlBase: string;
    },
  ) {}

  /**
   * `POST /public/uploads/intent`: a ticket for at most `size` bytes. The website's daily volume counts
   * the bytes stored today plus every ticket that may still store bytes, so declaring less than is sent
   * gains nothing (the PUT refuses more than the ticket's size) and declaring more only reserves.
   * Order: the request's own faults (400 name, 404 website) first, then 503 without UPLOAD_TOKEN_SECRET.
   */
  async intent(
    input: IntentInput,
  ): Promise<{ uploadId: string; uploadUrl: string; expiresIn: number; maxBytes: number }> {
    const filename = normaliseFilename(input.filename);
    // The attached file is named `<first 8 of the upload id>-<name>`: that name must fit a segment too.
    if (filename.length > MAX_SEGMENT_LENGTH - ATTACH_PREFIX_LENGTH)
      throw badRequest(
        `filename is longer than ${MAX_SEGMENT_LENGTH - ATTACH_PREFIX_LENGTH} characters`,
        'filename',
        'INVALID_PATH',
      );
    const website = await this.website(input);
    if (!this.deps.tickets)
      throw unavailable('Public uploads are not configured (UPLOAD_TOKEN_SECRET)', 'UPLOADS_UNAVAILABLE');
    const settings = await this.deps.sites.uploadSettings(website.id);
    if (!settings?.enabled) throw forbidden('This website does not accept uploads', 'UPLOADS_DISABLED');
    const maxBytes = Math.min(settings.maxFileBytes, this.deps.maxFileBytes);
    if (input.size > maxBytes)
      throw new HttpError(413, 'ASSET_TOO_LARGE', `The file is larger than ${maxBytes} bytes`, 'size');
    const folder = normaliseFolder(settings.folder);
    const now = this.deps.clock.now();
    const uploadId = randomUUID();
    const expiresAt = new Date(now.getTime() + this.deps.ticketTtlSeconds * 1000);
    await this.deps.db.transaction(async (trx) => {
      // Intents of one website are checked one after the other, so two cannot share the last bytes.
      await store.lockWebsiteQuota(trx, website.id);
      if ((await store.bytesUsed(trx, website.id, utcDay(now), now)) + input.size > settings.dailyBytes) {
        throw tooManyRequests(
          'The website has used its upload volume for today',
          (nextUtcDay(now).getTime() - now.getTime()) / 1000,
          'UPLOAD_QUOTA_EXCEEDED',
        );
      }
      await store.insertFormUpload(trx, {
        id: uploadId,
        website_id: website.id,
        field_id: input.fieldId,
        filename,
        declared_size: input.size,
        // The ticket accepts what it was issued for, never up to the website's maximum.
        max_bytes: input.size,
        allowed_types: settings.allowedTypes,
        folder,
        visibility: settings.visibility,
        expires_at: expiresAt,
        created_at: now,
      });
    });
    return {
      uploadId,
      uploadUrl: `${this.deps.uploadUrlBase}/public/upload-data/${this.deps.tickets.sign(uploadId, expiresAt)}`,
      expiresIn: this.deps.ticketTtlSeconds,
      maxBytes: input.size,
    };
  }

  /** The website of an intent: an explicit id, else the Origin's host, else the Referer's host or first path segment. */
  private async website(input: IntentInput): Promise<{ id: string }> {
    // Without the content plugin there are no websites to find.
    if (!this.deps.sites.available) throw notFound('No website matches this request', 'WEBSITE_NOT_FOUND');
    const lookups: Array<{ id?: string; host?: string; path?: string }> = [];
    if (input.websiteId) lookups.push({ id: input.websiteId });
    for (const header of [input.origin, input.referer]) {
      const url = parseUrl(header);
      if (url) lookups.push({ host: url.hostname });
    }
    const referer = parseUrl(input.referer);
    if (referer) lookups.push({ path: referer.pathname });
    for (const by of lookups) {
      const found = await this.deps.sites.findWebsite(by);
      if (found) return found;
    }
    throw notFound('No website matches this request (Origin, Referer or websiteId)', 'WEBSITE_NOT_FOUND');
  }

  /** `PUT /public/upload-data/<ticket>`: the bytes, checked by size and content, staged. */
  async receive(ticket: string, body: Readable): Promise<{ uploadId: string; size: number; mimeType: string }> {
    const now = this.deps.clock.now();
    // Without UPLOAD_TOKEN_SECRET no ticket was ever issued, so none is valid.
    const uploadId = this.deps.tickets ? this.deps.tickets.verify(ticket, now) : null;
    const row = uploadId ? await store.claimTicket(this.deps.db, uploadId, now) : undefined;
    if (!row) throw notFound('Unknown, expired or already used upload ticket', 'UPLOAD_NOT_FOUND');
    try {
      return await this.stage(row, body);
    } catch (err) {
      // Nothing was stored: the ticket's reservation ends with it (the claim already made it single use).
      await store
        .deleteFormUploads(this.deps.db, [row.id])
        .catch((cleanup) => this.deps.log.warn({ err: cleanup }, 'refused upload row not removed'));
      throw err;
    }
  }

  private async stage(
    row: store.FormUploadRow,
    body: Readable,
  ): Promise<{ uploadId: string; size: number; mimeType: string }> {
    const declared = Number(row.max_bytes);
    const received = await receiveToTemp(body, { maxBytes: declared, tmpDir: this.deps.tmpDir }).catch((err) => {
      throw err instanceof HttpError && err.statusCode === 413
        ? new HttpError(
            413,
            'ASSET_TOO_LARGE',
            `The file is larger than the ${declared} bytes its upload intent declared (size)`,
            'file',
          )
        : err;
    });
    try {
      const type = sniffType(received.head);
      const refusal = refusedType(type, row.allowed_types);
      if (refusal) throw badRequest(refusal, 'file', 'FILE_TYPE_REFUSED');
      if (received.size === 0) throw badRequest('The file is empty', 'file', 'EMPTY_FILE');
      // The first bytes only name a type: the whole file must be one (GIF89a<html>... is not a GIF).
      const invalid = await this.deps.contentCheck.refusal(received.tempPath, received.size, type.mimeType);
      if (invalid) throw badRequest(invalid, 'file', 'FILE_CONTENT_INVALID');
      const key = keys.staged(row.id);
      await this.deps.storage.putFile(key, received.tempPath, { contentType: type.mimeType });
      const stagedAt = this.deps.clock.now();
      await this.deps.db
        .transaction(async (trx) => {
          await store.markStaged(trx, row.id, {
            staged_at: stagedAt,
            size: received.size,
            sha256: received.sha256,
            mime_type: type.mimeType,
          });
          // The day's quota counts what was stored, in the same commit that ends the ticket's reservation.
          await store.addUsage(trx, row.website_id, utcDay(stagedAt), received.size);
        })
        .catch(async (err) => {
          await this.deps.storage.delete(key);
          throw err;
        });
      return { uploadId: row.id, size: received.size, mimeType: type.mimeType };
    } finally {
      await received.discard();
    }
  }

  /**
   * Moves a staged upload into the library in the caller's transaction: when it rolls back, the
   * asset row goes with it and the stored copy is removed; the staged bytes stay until the job.
   */
  async attach(input: AttachFormUploadInput, trx?: Tx): Promise<AssetRow> {
    const folder = normaliseFolder(input.folder);
    if (input.visibility !== 'public' && input.visibility !== 'private')
      throw badRequest('visibility must be public or private', 'visibility');
    const stagedAfter = new Date(this.deps.clock.now().getTime() - this.deps.stagingTtlSeconds * 1000);
    return inTransaction(this.deps.db, trx, async (t) => {
      const row = await store.findAttachable(t, input.uploadId, stagedAfter);
      if (!row) throw notFound('Unknown, expired or already attached upload', 'UPLOAD_NOT_FOUND');
      const received = await this.stagedCopy(row);
      try {
        if (received.sha256 !== row.sha256)
          throw badRequest('The staged file changed since it was received', 'uploadId', 'UPLOAD_MISMATCH');
        const refusal = refusedType(sniffType(received.head), row.allowed_types);
        if (refusal) throw badRequest(refusal, 'uploadId', 'FILE_TYPE_REFUSED');
        // The upload id keeps names from different senders apart in the website's folder.
        const asset = await this.deps.library.storeReceived(
          received,
          {
            folder,
            filename: `${row.id.slice(0, ATTACH_PREFIX_LENGTH - 1)}-${row.filename}`,
            visibility: input.visibility as Visibility,
            actor: { type: 'system', id: null },
            formUploadId: row.id,
            metadata: { source: 'form-upload', uploadId: row.id, websiteId: row.website_id, fieldId: row.field_id },
          },
          t,
          trx ?? t,
        );
        await store.markAttached(t, row.id, asset.id, this.deps.clock.now());
        this.deps.library.afterOutcome(trx ?? t, {
          committed: () => this.deps.storage.delete(keys.staged(row.id)),
          rolledBack: () => undefined,
        });
        return asset;
      } finally {
        await received.discard();
      }
    });
  }

  /** A staged upload that can still be attached, so a submit can check its field and target. */
  async staged(uploadId: string, trx?: Tx): Promise<StagedUpload | undefined> {
    const stagedAfter = new Date(this.deps.clock.now().getTime() - this.deps.stagingTtlSeconds * 1000);
    const row = await store.findStaged(trx ?? this.deps.db, uploadId, stagedAfter);
    return row
      ? {
          uploadId: row.id,
          websiteId: row.website_id,
          fieldId: row.field_id,
          folder: row.folder,
          visibility: row.visibility,
        }
      : undefined;
  }

  private async stagedCopy(row: store.FormUploadRow): Promise<ReceivedFile> {
    const got = await this.deps.storage.get(keys.staged(row.id));
    if (!got) throw notFound('The staged upload is gone', 'UPLOAD_NOT_FOUND');
    return receiveToTemp(got.body, { maxBytes: Number(row.max_bytes), tmpDir: this.deps.tmpDir }).catch((err) => {
      throw err instanceof HttpError && err.statusCode === 413 ? tooLarge(Number(row.max_bytes)) : err;
    });
  }

  /** Removes staged bytes and rows older than the staging time, and past days' quota counts (the job). */
  async purgeStaging(): Promise<number> {
    const now = this.deps.clock.now();
    const before = new Date(now.getTime() - this.deps.stagingTtlSeconds * 1000);
    await store.deleteUsageBefore(this.deps.db, utcDay(new Date(now.getTime() - DAY_MS)));
    let removed = 0;
    for (;;) {
      const rows = await store.findExpired(this.deps.db, before, 200);
      if (rows.length === 0) return removed;
      for (const row of rows) await this.deps.storage.delete(keys.staged(row.id));
      await store.deleteFormUploads(
        this.deps.db,
        rows.map((r) => r.id),
      );
      removed += rows.length;
    }
  }
}

function refusedType(type: SniffedType, allowed: readonly string[]): string | null {
  if (NEVER.test(type.mimeType) || !CHECKED.has(type.mimeType))
    return `Files of type ${type.mimeType} are never accepted from forms`;
  if (!allowed.includes(type.mimeType)) return `Files of type ${type.mimeType} are not accepted by this website`;
  return null;
}

/** The UTC day of a moment, as `YYYY-MM-DD`. */
const utcDay = (at: Date) => at.toISOString().slice(0, 10);
const nextUtcDay = (at: Date) => new Date((Math.floor(at.getTime() / DAY_MS) + 1) * DAY_MS);

function parseUrl(value: string | undefined): URL | null {
  if (!value || value.length > 2048) return null;
  try {
    return new URL(value);
  } catch {
    return null;
  }
}
