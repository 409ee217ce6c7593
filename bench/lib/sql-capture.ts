import pg from 'pg';

/** A statement a server process sent to PostgreSQL, as the driver got it. */
export interface CapturedStatement {
  text: string;
  values: unknown[];
  /** Set when the statement was sent as a named prepared statement. */
  name?: string;
}

type QueryFn = (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) => unknown;

/**
 * Lets the benchmark ask a server child which SQL one request of each shape runs, whatever builds it
 * (knex, raw pg, named prepared statements): every statement goes through `pg.Client#query`. The
 * wrapper is installed only between `sql-capture:start` and `sql-capture:stop` IPC messages, so the
 * measured load runs against the untouched driver.
 */
export function answerSqlCaptureRequests(): void {
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const original = proto.query;
  let captured: CapturedStatement[] = [];
  process.on('message', (message: { type?: string }) => {
    if (message?.type === 'sql-capture:start') {
      captured = [];
      proto.query = function (this: pg.Client, config, values, callback) {
        captured.push(describe(config, values));
        return original.call(this, config, values, callback);
      };
      process.send!({ type: 'sql-capture:start:done' });
    } else if (message?.type === 'sql-capture:stop') {
      proto.query = original;
      process.send!({ type: 'sql-capture:stop:done', statements: captured });
      captured = [];
    }
  });
}

function describe(config: unknown, values: unknown): CapturedStatement {
  if (typeof config === 'string') return { text: config, values: Array.isArray(values) ? values : [] };
  const c = config as { text?: string; values?: unknown[]; name?: string };
  return {
    text: c.text ?? '',
    values: c.values ?? (Array.isArray(values) ? values : []),
    ...(c.name ? { name: c.name } : {}),
  };
}
