import type { Logger, MailPort, Tx } from '../../../kernel/index.ts';
import type { FormNotifySource } from '../ports.ts';

/** The spec's notification limit: one plain recipient, at most 3 mails an hour per address. */
export const NOTIFY_MAILS_PER_HOUR = 3;
const PLAIN_ADDRESS = /^[^\s@<>,;:"()[\]\\]{1,64}@[^\s@<>,;:"()[\]\\]{1,189}\.[^\s@<>,;:"()[\]\\]{1,63}$/;
const MAX_FIELD_TEXT = 2_000;

/** JSON with sorted keys, so two blocks compare equal whatever the order their keys were written in. */
function canonical(value: unknown, depth = 0): string {
  if (depth > 8) return '"…"';
  if (Array.isArray(value)) return `[${value.map((v) => canonical(v, depth + 1)).join(',')}]`;
  if (typeof value === 'object' && value !== null)
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k], depth + 1)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

function fieldsText(attributes: Record<string, unknown>): string {
  return Object.entries(attributes)
    .map(([k, v]) => {
      const text = typeof v === 'string' ? v : JSON.stringify(v);
      return `${k}: ${text.length > MAX_FIELD_TEXT ? `${text.slice(0, MAX_FIELD_TEXT)}…` : text}`;
    })
    .join('\n');
}

/**
 * Form notifications: the submitted `notify` block is used only when an author saved exactly that
 * block in a form of a published page for the class (registry `formNotifySources`), to one plain recipient,
 * within the hourly limit per address; the mail is queued through the kernel's mail port in the
 * submit's transaction (the mail plugin's outbox when loaded), so it exists only if the object does.
 */
export class FormNotifications {
  constructor(private readonly deps: { mail: MailPort; sources: readonly FormNotifySource[]; log: Logger }) {}

  /** Answers whether a mail was queued. */
  async queue(
    classId: string,
    notify: unknown,
    object: { id: string; attributes: Record<string, unknown> },
    trx: Tx,
  ): Promise<boolean> {
    if (notify === undefined || notify === null) return false;
    const wanted = canonical(notify);
    let saved: { websiteId: string; notify: unknown } | undefined;
    for (const source of this.deps.sources) {
      saved = (await source.savedNotifyBlocks(classId, trx)).find((b) => canonical(b.notify) === wanted);
      if (saved) break;
    }
    if (!saved) {
      this.deps.log.warn({ classId }, 'form notify block not saved by an author for this class: no mail');
      return false;
    }
    const block = saved.notify as { to?: unknown; subject?: unknown };
    const to = typeof block.to === 'string' ? block.to.trim() : '';
    if (!PLAIN_ADDRESS.test(to)) {
      this.deps.log.warn({ classId }, 'form notify block without one plain recipient: no mail');
      return false;
    }
    const subject =
      typeof block.subject === 'string' && block.subject.trim()
        ? block.subject.replace(/\s+/g, ' ').trim().slice(0, 200)
        : 'New form submission';
    const fields = fieldsText(object.attributes);
    const sent = await this.deps.mail.send(
      {
        to,
        subject,
        text: `A form was submitted.\n\n${fields}\n\nRecord: ${object.id}\n`,
        kind: 'form-notification',
        websiteId: saved.websiteId,
        template: { key: 'form-notification', variables: { subject, fields, objectId: object.id, classId } },
      },
      { trx, throttle: { key: `form-notify:${to.toLowerCase()}`, max: NOTIFY_MAILS_PER_HOUR, windowMs: 3600_000 } },
    );
    // Without a mail plugin the port itself logs that nothing was sent.
    if (!sent.accepted && sent.reason === 'throttled')
      this.deps.log.warn({ classId }, 'form notification over the hourly limit for its address: no mail');
    return sent.accepted;
  }
}
