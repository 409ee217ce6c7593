import { expect } from 'chai';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../kernel/loader.ts';

const PLUGINS = path.join(PROJECT_ROOT, 'plugins');

/**
 * What SQL in a file looks like: raw SQL (`.raw(`, `whereRaw(` and the like) or a query builder on a
 * table (`db('assets')`, `trx('...')`, `this.deps.db('...')`). A service passes its handle or
 * transaction to a store function; opening a transaction is not SQL.
 */
const SQL = /\.raw\(|[a-z]Raw\(|\b(db|trx|tx|q|knex)\(\s*['"`]|\.db\(\s*['"`]/;

/** Folders where SQL belongs, or that are not product code. */
const NOT_CHECKED = /\/(store|migrations|test|admin|app|examples)\//;

function productFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : productFiles(full);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [full] : [];
  });
}

describe('plugins: SQL only in store/', () => {
  it('no plugin file outside store/ (and migrations) reads or writes tables itself', () => {
    const holding = productFiles(PLUGINS)
      .map((file) => path.relative(PROJECT_ROOT, file).split(path.sep).join('/'))
      .filter((file) => !NOT_CHECKED.test(`/${file}`))
      .filter((file) => SQL.test(readFileSync(path.join(PROJECT_ROOT, file), 'utf8')))
      .sort();
    expect(holding, 'SQL outside store/').to.deep.equal([]);
  });

  it("no plugin reads or writes the kernel's account tables: users, roles and sessions go through kernel services", () => {
    const ACCOUNT_TABLES =
      /\((['"])(users|user_roles|roles|sessions)( as [a-z]+)?\1\)|\b(FROM|JOIN) (users|user_roles|roles|sessions)\b/i;
    const reaching = productFiles(PLUGINS)
      .map((file) => path.relative(PROJECT_ROOT, file).split(path.sep).join('/'))
      .filter((file) => !/\/(test|migrations|admin|app)\//.test(`/${file}`))
      .filter((file) => ACCOUNT_TABLES.test(readFileSync(path.join(PROJECT_ROOT, file), 'utf8')));
    expect(reaching).to.deep.equal([]);
  });
});
