import type { PluginContributions, Tx, UserDirectory } from '../../../kernel/index.ts';
import type { GeneratedStore, PersonMatch } from '../store/generated.ts';

/** Whole entries an export carries at most. */
const EXPORT_LIMIT = 10_000;

/**
 * A person's prompts and results (`/ai/generated`) for the data-subject plugin: the entries the
 * account with that e-mail address wrote, and every entry whose prompt names the identifier. An
 * erase deletes them (they are a log of past results, nothing else refers to them).
 */
export function aiDataSubjectSource(
  store: GeneratedStore,
  users: Pick<UserDirectory, 'findByEmail'>,
): PluginContributions['dataSubjectSources'] {
  const who = async (identifier: string, trx?: Tx): Promise<PersonMatch> => {
    const needle = identifier.trim();
    const user = needle.includes('@') ? await users.findByEmail(needle, trx) : undefined;
    return { userId: (user?.id as string | undefined) ?? null, mention: needle.length >= 3 ? needle : null };
  };
  return {
    kind: 'aiGenerations',
    plugin: 'ai',
    async find(identifier, options, trx) {
      const match = await who(identifier, trx);
      const limit = Math.min(Math.max(options.limit ?? 100, 1), 1000);
      const { rows, total, ids } = await store.findForPerson(match, limit, trx);
      const lower = identifier.trim().toLowerCase();
      return {
        kind: 'aiGenerations',
        count: total,
        items: rows.map((r) => ({
          id: r.id,
          at: r.createdAt,
          label: `${r.kind}: ${r.prompt.slice(0, 60)}`,
          matched: [
            ...(match.userId && r.createdBy === match.userId ? ['createdBy'] : []),
            ...(r.prompt.toLowerCase().includes(lower) ? ['prompt'] : []),
          ],
        })),
        ...(options.everyId ? { ids } : {}),
      };
    },
    async *records(identifier) {
      const { rows } = await store.findForPerson(await who(identifier), EXPORT_LIMIT);
      yield* rows;
    },
    async erase(identifier, _options, { dryRun }) {
      const erased = await store.eraseForPerson(await who(identifier), dryRun);
      return { kind: 'aiGenerations', erased, kept: [] };
    },
  };
}
