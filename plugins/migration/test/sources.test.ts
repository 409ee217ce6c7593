import { expect } from 'chai';
import { auditRows, startTestKernel, type TestKernel, type TestUser } from '../../../test/helpers/kernel.ts';

const KEY = { INTEGRATION_SECRETS_ENCRYPTION_KEY: 'a7'.repeat(32) };
const body = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  kind: 'pimcore',
  connection: { host: '127.0.0.1', port: 3306, database: 'pimcore', user: 'pim', password: 'hunter2-secret' },
  classPath: '/srv/pimcore/var/classes',
  ...extra,
});

describe('migration sources: create, list, change, delete', () => {
  let t: TestKernel;
  let admin: TestUser;
  before(async () => {
    t = await startTestKernel({ plugins: ['gateway', 'data', 'migration'], env: KEY });
    admin = await t.admin();
  });
  after(() => t.close());

  it('creates a source with passwordSet, seals the password at rest and never answers it', async () => {
    const res = await t.call('POST', '/migration-sources', admin, body('shop'));
    expect(res.statusCode, res.body).to.equal(201);
    const source = res.json();
    expect(source).to.include({
      name: 'shop',
      kind: 'pimcore',
      passwordSet: true,
      classPath: '/srv/pimcore/var/classes',
    });
    expect(source.connection).to.deep.equal({
      host: '127.0.0.1',
      port: 3306,
      database: 'pimcore',
      user: 'pim',
      ssl: false,
    });
    expect(res.body).not.to.contain('hunter2');
    const row = await t.db('migration_sources').where({ id: source.id }).first();
    expect(row.password_sealed).to.match(/^v1:INTEGRATION_SECRETS_ENCRYPTION_KEY:/);
    expect(JSON.stringify(row)).not.to.contain('hunter2');
    const list = await t.call('GET', '/migration-sources', admin);
    expect(list.statusCode).to.equal(200);
    expect(list.body).not.to.contain('hunter2');
    expect(list.json().sources.map((s: { name: string }) => s.name)).to.include('shop');
    const [audit] = await auditRows(t, 'migration_source.create', source.id);
    expect(audit.after).to.include({ name: 'shop', host: '127.0.0.1', password: 'changed' });
    expect(JSON.stringify(audit)).not.to.contain('hunter2');
  });

  it('audits a changed password as `changed`, the same password as no change', async () => {
    const { id } = (await t.call('POST', '/migration-sources', admin, body('patch-me'))).json();
    const same = await t.call('PATCH', `/migration-sources/${id}`, admin, {
      connection: { password: 'hunter2-secret' },
    });
    expect(same.statusCode, same.body).to.equal(200);
    expect(await auditRows(t, 'migration_source.update', id)).to.have.length(0);
    const changed = await t.call('PATCH', `/migration-sources/${id}`, admin, {
      name: 'patched',
      connection: { password: 'another-secret' },
    });
    expect(changed.statusCode, changed.body).to.equal(200);
    expect(changed.json()).to.include({ name: 'patched', passwordSet: true });
    const [row] = await auditRows(t, 'migration_source.update', id);
    expect(row.before).to.deep.equal({ name: 'patch-me', password: 'changed' });
    expect(row.after).to.deep.equal({ name: 'patched', password: 'changed' });
    const cleared = await t.call('PATCH', `/migration-sources/${id}`, admin, { connection: { password: '' } });
    expect(cleared.json().passwordSet).to.equal(false);
  });

  it('deletes a source with an audit row; an unknown id answers 404', async () => {
    const { id } = (await t.call('POST', '/migration-sources', admin, body('to-delete'))).json();
    expect((await t.call('DELETE', `/migration-sources/${id}`, admin)).statusCode).to.equal(204);
    expect((await auditRows(t, 'migration_source.delete', id))[0].before).to.include({ name: 'to-delete' });
    const again = await t.call('DELETE', `/migration-sources/${id}`, admin);
    expect(again.statusCode).to.equal(404);
    expect(again.json().code).to.equal('MIGRATION_SOURCE_NOT_FOUND');
  });

  it('refuses a second source of the same name (409), bad input naming the field (400), without writing', async () => {
    await t.call('POST', '/migration-sources', admin, body('twice'));
    const dup = await t.call('POST', '/migration-sources', admin, body('twice'));
    expect(dup.statusCode).to.equal(409);
    expect(dup.json()).to.include({ code: 'SOURCE_NAME_TAKEN', field: 'name' });
    const relative = await t.call('POST', '/migration-sources', admin, body('rel', { classPath: 'var/classes' }));
    expect(relative.statusCode).to.equal(400);
    expect(relative.json().field).to.equal('classPath');
    const dots = await t.call('POST', '/migration-sources', admin, body('dots', { classPath: '/srv/../etc' }));
    expect(dots.statusCode).to.equal(400);
    const url = await t.call('POST', '/migration-sources', admin, {
      ...body('url'),
      connection: { host: 'mysql://x', port: 3306, database: 'p', user: 'u' },
    });
    expect(url.statusCode).to.equal(400);
    expect(await t.db('migration_sources').whereIn('name', ['rel', 'dots', 'url'])).to.have.length(0);
  });

  it('refuses a link-local or metadata database host by the outbound policy (400 HOST_REFUSED)', async () => {
    for (const host of ['169.254.169.254', '169.254.10.1']) {
      const res = await t.call('POST', '/migration-sources', admin, {
        ...body(`meta-${host}`),
        connection: { host, port: 3306, database: 'p', user: 'u' },
      });
      expect(res.statusCode, res.body).to.equal(400);
      expect(res.json()).to.include({ code: 'HOST_REFUSED', field: 'connection.host' });
    }
  });

  it('needs migration:manage (403 without, 401 anonymous)', async () => {
    const editor = await t.createUser({ permissions: ['objects:write'] });
    expect((await t.call('GET', '/migration-sources', editor)).statusCode).to.equal(403);
    expect((await t.call('GET', '/migration-sources', null)).statusCode).to.equal(401);
    const manager = await t.createUser({ permissions: ['migration:manage'] });
    expect((await t.call('GET', '/migration-sources', manager)).statusCode).to.equal(200);
  });
});

describe('migration sources: the sandbox profile switches imports off', () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ plugins: ['gateway', 'data', 'migration'], env: { ...KEY, SANDBOX: '1' } });
  });
  after(() => t.close());

  it('answers the connection test and the class steps 403 SANDBOX_BLOCKED', async () => {
    const admin = await t.admin();
    const res = await t.call('POST', '/migration-sources', admin, body('sandboxed'));
    expect(res.statusCode, res.body).to.equal(403);
    expect(res.json().code).to.equal('OUTBOUND_REFUSED');
    const id = '00000000-0000-4000-8000-000000000001';
    for (const step of ['test', 'preview-classes', 'import-classes']) {
      const blocked = await t.call('POST', `/migration-sources/${id}/${step}`, admin);
      expect(blocked.statusCode, step).to.equal(403);
      expect(blocked.json().code).to.equal('SANDBOX_BLOCKED');
    }
  });
});
