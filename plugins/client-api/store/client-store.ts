import type { Db, Tx } from '../../../kernel/index.ts';
import type { ClientRow, KeyRow } from '../model.ts';

type Conn = Db | Tx;
const json = (v: unknown) => JSON.stringify(v);

export type ClientFields = Pick<
  ClientRow,
  'name' | 'auth_mode' | 'status' | 'scopes' | 'limits' | 'allowed_addresses' | 'expires_at' | 'jwt'
>;

function encode(fields: Partial<ClientFields>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  for (const name of ['scopes', 'limits', 'allowed_addresses', 'jwt'] as const) {
    if (fields[name] !== undefined) out[name] = fields[name] === null ? null : json(fields[name]);
  }
  return out;
}

export async function insertClient(db: Conn, fields: ClientFields): Promise<ClientRow> {
  const [row] = await db('api_clients').insert(encode(fields)).returning('*');
  return row as ClientRow;
}

export async function updateClient(
  db: Conn,
  id: string,
  fields: Partial<ClientFields>,
  now: Date,
): Promise<ClientRow | undefined> {
  const [row] = await db('api_clients')
    .where({ id })
    .update({ ...encode(fields), updated_at: now })
    .returning('*');
  return row as ClientRow | undefined;
}

export async function findClient(db: Conn, id: string, lock = false): Promise<ClientRow | undefined> {
  const q = db('api_clients').where({ id }).first();
  return (lock ? q.forUpdate() : q) as Promise<ClientRow | undefined>;
}

export async function listClients(db: Conn, limit: number, offset: number): Promise<ClientRow[]> {
  return db('api_clients')
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ])
    .limit(limit)
    .offset(offset);
}

export async function deleteClient(db: Conn, id: string): Promise<boolean> {
  return (await db('api_clients').where({ id }).delete()) > 0;
}

/** jwt clients registered for an issuer (a token names its issuer; the audience picks the client). */
export async function jwtClientsOfIssuer(db: Conn, issuer: string): Promise<ClientRow[]> {
  return db('api_clients').where({ auth_mode: 'jwt' }).whereRaw(`jwt->>'issuer' = ?`, [issuer]).limit(50);
}

export async function insertKey(db: Conn, clientId: string, prefix: string, keyHash: string): Promise<KeyRow> {
  const [row] = await db('api_client_keys').insert({ client_id: clientId, prefix, key_hash: keyHash }).returning('*');
  return row as KeyRow;
}

export async function keysOf(db: Conn, clientIds: string[]): Promise<KeyRow[]> {
  if (clientIds.length === 0) return [];
  return db('api_client_keys')
    .whereIn('client_id', clientIds)
    .orderBy([
      { column: 'created_at', order: 'asc' },
      { column: 'id', order: 'asc' },
    ]);
}

export async function revokeKey(db: Conn, clientId: string, keyId: string, now: Date): Promise<KeyRow | undefined> {
  const [row] = await db('api_client_keys')
    .where({ id: keyId, client_id: clientId })
    .update({ revoked_at: db.raw('coalesce(revoked_at, ?)', [now]) })
    .returning('*');
  return row as KeyRow | undefined;
}

/** The live key with this hash and its client (one indexed lookup on the hot path). */
export async function findByKeyHash(
  db: Conn,
  keyHash: string,
): Promise<{ key: KeyRow; client: ClientRow } | undefined> {
  const key = (await db('api_client_keys').where({ key_hash: keyHash }).whereNull('revoked_at').first()) as
    | KeyRow
    | undefined;
  if (!key) return undefined;
  const client = await findClient(db, key.client_id);
  return client ? { key, client } : undefined;
}

/** Revokes every live key of a client (it stops authenticating with keys). */
export async function revokeAllKeys(db: Conn, clientId: string, now: Date): Promise<void> {
  await db('api_client_keys').where({ client_id: clientId }).whereNull('revoked_at').update({ revoked_at: now });
}
