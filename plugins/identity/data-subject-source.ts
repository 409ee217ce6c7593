import type { PluginContributions, UserDirectory } from '../../kernel/index.ts';

/**
 * Staff accounts as a data-subject source (registry `dataSubjectSources`): the account whose e-mail
 * is the identifier (any case). Reported only: no `erase`, because removing a staff account is user
 * management (`DELETE /users/:id`, audited) and never a side effect of a data-subject request.
 */
export function accountDataSubjectSource(users: UserDirectory): PluginContributions['dataSubjectSources'] {
  const account = async (identifier: string) => {
    const row = await users.findByEmail(identifier);
    return row
      ? {
          id: row.id as string,
          email: row.email as string,
          displayName: (row.display_name ?? null) as string | null,
          createdAt: new Date(row.created_at).toISOString(),
        }
      : null;
  };
  return {
    kind: 'accounts',
    plugin: 'identity',
    async find(identifier) {
      const found = await account(identifier);
      return {
        kind: 'accounts',
        count: found ? 1 : 0,
        items: found ? [{ id: found.id, at: found.createdAt, label: found.email, matched: ['email'] }] : [],
      };
    },
    async *records(identifier) {
      const found = await account(identifier);
      if (found) yield found;
    },
  };
}
