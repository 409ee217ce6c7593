// Regenerates the README's screenshots of the admin dashboard (plugins/admin-ui/screenshots/*.png):
// the product with every plugin on a loopback port, a few records so the screens are not empty,
// Chromium at 1280 x 800. Run after changing a screen; commit the PNGs.
import path from 'node:path';
import { PROJECT_ROOT } from '../kernel/loader.ts';
import { signInAs, startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';

const OUT = path.join(PROJECT_ROOT, 'plugins/admin-ui/screenshots');

const product = await startBrowserProduct();
try {
  const { t } = product;
  const admin = await t.createUser({ roles: ['admin'], email: 'ada@example.com' });
  await t.db('users').where({ id: admin.id }).update({ display_name: 'Ada Lovelace' });
  for (const [name, permissions] of [
    ['proofreaders', ['objects:read']],
    ['integrators', ['gateway:manage', 'objects:read']],
  ] as const)
    await t.call('POST', '/auth/roles', admin, { name, description: `The ${name}`, permissions });
  for (const email of ['grace@example.com', 'alan@example.com', 'edsger@example.com'])
    await t.call('POST', '/auth/users', admin, { email, roles: ['editor'], password: 'A-long-passw0rd-here' });
  const site = (
    await t.call('POST', '/cms-one/websites', admin, { name: 'Shop', rootPath: '/shop', locales: ['en', 'de'] })
  ).json() as { id: string };

  const shots: [string, string, string][] = [
    ['sign-in', '/sign-in', 'Sign in'],
    ['home', '/admin', 'Dashboard'],
    ['users', '/admin/users', 'Users'],
    ['role', '', 'Role editor'],
    ['audit-log', '/admin/audit-log', 'Audit log'],
    ['security-settings', '/admin/security-settings', 'Security settings'],
    ['single-sign-on', '/admin/single-sign-on', 'Single sign-on'],
    ['data-subject', '/admin/data-subject', 'Data-subject requests'],
    ['bundles', '/admin/bundles', 'Website bundles'],
    ['push', `/admin/push?website=${site.id}`, 'Push notifications'],
  ];
  const { page, context } = await product.page('desktop');
  const roles = (await t.call('GET', '/auth/roles', admin)).json().roles as { id: string; name: string }[];
  for (const [name, url, heading] of shots) {
    if (name === 'home') await signInAs(product, context, admin);
    await page.goto(url || `/admin/roles/${roles.find((r) => r.name === 'editor')?.id}`);
    await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    await page.waitForLoadState('networkidle');
    await page.screenshot({ path: path.join(OUT, `${name}.png`) });
    console.log(`wrote plugins/admin-ui/screenshots/${name}.png`);
  }
} finally {
  await product.close();
  await teardownTestDatabases();
}
