import mysql from 'mysql2/promise';
import type { OutboundGuard } from '../../../kernel/index.ts';
import { readClassFolder } from './class-files.ts';
import type { SourceService } from './sources.ts';

export interface ConnectionReport {
  ok: boolean;
  server: string | null;
  classes: number;
  objects: number;
  documents: number;
  problems: string[];
}

/** A message from the driver without anything the caller did not send (no password is ever in it). */
const problemOf = (err: unknown) => {
  const e = err as { code?: string; message?: string };
  return `${e.code ? `${e.code}: ` : ''}${(e.message ?? String(err)).slice(0, 300)}`;
};

/** Opens a connection to a source's database under the outbound policy (asked right before connecting). */
export async function connectSource(
  sources: SourceService,
  guard: Pick<OutboundGuard, 'assertAllowed'>,
  sourceId: string,
  connectTimeoutMs: number,
): Promise<mysql.Connection> {
  const { row, password } = await sources.secrets(sourceId);
  await sources.checkHost(row.host);
  guard.assertAllowed(row.host);
  return mysql.createConnection({
    host: row.host,
    port: row.port,
    user: row.user_name,
    password: password ?? undefined,
    database: row.database_name,
    ssl: row.ssl ? {} : undefined,
    connectTimeout: connectTimeoutMs,
    // Dates and big numbers as Pimcore stored them; the importer converts.
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  });
}

/**
 * `POST /migration-sources/:id/test`: connects, reads the server version and counts Pimcore's
 * objects and documents, then reads the class folder. Every failure is a problem in the answer.
 */
export async function testSource(
  sources: SourceService,
  guard: Pick<OutboundGuard, 'assertAllowed'>,
  sourceId: string,
  opts: { connectTimeoutMs: number; maxFileBytes: number },
): Promise<ConnectionReport> {
  const report: ConnectionReport = { ok: false, server: null, classes: 0, objects: 0, documents: 0, problems: [] };
  const source = await sources.get(sourceId);
  let connection: mysql.Connection | undefined;
  try {
    connection = await connectSource(sources, guard, sourceId, opts.connectTimeoutMs);
    const [version] = await connection.query<mysql.RowDataPacket[]>('SELECT VERSION() AS v');
    report.server = String(version[0]?.v ?? '');
    const [objects] = await connection.query<mysql.RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM objects WHERE type <> 'folder'",
    );
    report.objects = Number(objects[0]?.n ?? 0);
    const [documents] = await connection.query<mysql.RowDataPacket[]>(
      "SELECT COUNT(*) AS n FROM documents WHERE type <> 'folder' AND id <> 1",
    );
    report.documents = Number(documents[0]?.n ?? 0);
  } catch (err) {
    if ((err as { statusCode?: number }).statusCode) throw err;
    report.problems.push(`database: ${problemOf(err)}`);
  } finally {
    await connection?.end().catch(() => undefined);
  }
  try {
    report.classes = (await readClassFolder(source.classPath, opts.maxFileBytes)).filter(
      (d) => d.kind === 'class',
    ).length;
  } catch (err) {
    report.problems.push(`classPath: ${(err as Error).message}`);
  }
  report.ok = report.problems.length === 0;
  return report;
}
