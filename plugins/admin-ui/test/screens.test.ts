import { expect } from 'chai';
import { readdirSync, existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from '../../../kernel/loader.ts';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import type { AdminScreens } from '../app/src/sdk/screens.ts';
import { checkScreens } from '../app/src/screens-check.ts';

/** Every plugin's `admin/index.ts`, as the dashboard's build finds them. */
async function allScreenManifests(): Promise<AdminScreens[]> {
  const plugins = path.join(PROJECT_ROOT, 'plugins');
  const files = readdirSync(plugins)
    .map((id) => path.join(plugins, id, 'admin', 'index.ts'))
    .filter((f) => existsSync(f));
  return Promise.all(files.map(async (f) => (await import(pathToFileURL(f).href)).default as AdminScreens));
}

describe("admin-ui: plugins' screens", () => {
  let t: TestKernel;
  before(async () => {
    t = await startTestKernel({ service: 'all' });
  });
  after(() => t?.close());

  it('have unique ids and paths, lazy components, and permission keys the API knows', async () => {
    const manifests = await allScreenManifests();
    expect(manifests.length).to.be.greaterThan(0);
    const screens = checkScreens(manifests);
    const admin = await t.admin();
    const known = new Set<string>(
      (await t.call('GET', '/auth/permissions', admin)).json().permissions.map((p: { key: string }) => p.key),
    );
    for (const s of screens) {
      expect(s.load, s.id).to.be.a('function');
      expect(s.path, s.id).to.match(/^[a-z0-9-]+(\/[a-z0-9-:]+)*$/);
      const keys = s.permission === undefined ? [] : typeof s.permission === 'string' ? [s.permission] : s.permission;
      for (const key of keys) expect(known.has(key), `${s.id} needs unknown key ${key}`).to.equal(true);
    }
  });

  it('refuses duplicate ids or paths and a screen without exactly one of permission and session', () => {
    const load = async () => ({ default: () => null });
    const screen = { id: 'a.x', path: 'x', label: 'X', permission: 'audit:read', load };
    expect(() => checkScreens([{ plugin: 'a', screens: [screen, { ...screen, path: 'y' }] }])).to.throw(/id "a.x"/);
    expect(() => checkScreens([{ plugin: 'a', screens: [screen, { ...screen, id: 'a.y' }] }])).to.throw(/path "x"/);
    expect(() => checkScreens([{ plugin: 'a', screens: [{ ...screen, permission: undefined }] }])).to.throw(
      /exactly one/,
    );
    expect(() => checkScreens([{ plugin: 'a', screens: [{ ...screen, session: true as const }] }])).to.throw(
      /exactly one/,
    );
  });
});
