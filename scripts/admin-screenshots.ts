// Regenerates the README's screenshots of the admin dashboard (plugins/admin-ui/screenshots/*.png)
// from the real product: every plugin on a loopback port, demo data seeded through the API
// (scripts/admin-demo-data.ts), Debian's Chromium at 1280 x 800, signed in as an administrator.
//
// Which screens: the sign-in page, then every entry of the dashboard's main menu as an administrator
// sees it (so a plugin's new screen with a menu entry is photographed without a change here), then
// the record screens of RECORD_SCREENS below (screens reached from a list, which need a record);
// MENU_QUERY gives a menu screen a query where it shows more with one.
// The README's gallery between the `admin-screenshots` markers is rewritten to show them all, and
// images of screens that no longer exist are removed. Run after changing or adding a screen, and
// commit the PNGs with README.md.
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { PROJECT_ROOT } from '../kernel/loader.ts';
import { signInAs, startBrowserProduct } from '../test/helpers/browser.ts';
import { teardownTestDatabases } from '../test/helpers/database.ts';
import { type DemoRecords, seedDemoData } from './admin-demo-data.ts';
import { galleryTable, rewriteReadmeSection } from './readme-gallery.ts';

const OUT = path.join(PROJECT_ROOT, 'plugins/admin-ui/screenshots');

/** Screens of one record: a file name, the gallery's caption and the URL of a seeded record. */
const RECORD_SCREENS: { name: string; title: string; url: (r: DemoRecords) => string }[] = [
  { name: 'role', title: 'Role editor', url: (r) => `/admin/roles/${r.roleId}` },
  { name: 'data-class', title: 'Data class editor', url: (r) => `/admin/data/classes/${r.classId}` },
  { name: 'data-object', title: 'Object editor', url: (r) => `/admin/data/objects/${r.objectId}` },
  { name: 'gateway-endpoint', title: 'Gateway endpoint', url: (r) => `/admin/gateway/endpoints/${r.endpointId}` },
  { name: 'api-client', title: 'API client and keys', url: (r) => `/admin/gateway/clients/${r.clientId}` },
  {
    name: 'event-subscription',
    title: 'Event subscription and delivery log',
    url: (r) => `/admin/events/subscriptions/${r.subscriptionId}`,
  },
  {
    name: 'migration-classes',
    title: 'Pimcore class mapping',
    url: (r) => `/admin/migration/${r.migrationSourceId}/classes`,
  },
];

/** Menu screens that show more with a query (a list that needs a class or website chosen), by path. */
const MENU_QUERY = new Map<string, (r: DemoRecords) => string>([
  ['/admin/data/objects', () => '?class=article'],
  ['/admin/push', (r) => `?website=${r.websiteId}`],
]);

interface Shot {
  name: string;
  title: string;
  url: string;
}

/** The main menu's entries as the signed-in user sees them (the registered screens they may open). */
async function menuScreens(page: Page, records: DemoRecords): Promise<Shot[]> {
  await page.goto('/admin');
  const menu = page.getByRole('navigation', { name: 'Main' });
  await menu.getByRole('link').first().waitFor();
  const links = await menu.getByRole('link').evaluateAll((anchors) =>
    anchors.map((a) => ({
      href: (a as unknown as { getAttribute(n: string): string }).getAttribute('href'),
      title: ((a as unknown as { textContent: string | null }).textContent ?? '').trim(),
    })),
  );
  return links.map(({ href, title }) => ({
    name: href === '/admin' ? 'home' : href.replace(/^\/admin\//, '').replace(/[^a-z0-9]+/gi, '-'),
    title,
    url: href + (MENU_QUERY.get(href)?.(records) ?? ''),
  }));
}

/** Waits until the screen has its heading, no request in flight, nothing busy and no animation running. */
async function settled(page: Page): Promise<void> {
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  await page.waitForLoadState('networkidle');
  await page.waitForFunction(() => {
    // Runs in the page (the root tsconfig has no DOM types; the page's CSP forbids string eval).
    const { document } = globalThis as unknown as {
      document: {
        querySelector(s: string): unknown;
        getAnimations(): { playState: string; effect: { getTiming(): { iterations: number } } | null }[];
      };
    };
    if (document.querySelector('[aria-busy="true"], [role="status"] .mantine-Loader-root')) return false;
    return document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Number.POSITIVE_INFINITY);
  });
}

const product = await startBrowserProduct();
try {
  const { t } = product;
  const admin = await t.createUser({ roles: ['admin'], email: 'ada@example.com' });
  await t.db('users').where({ id: admin.id }).update({ display_name: 'Ada Lovelace' });
  const records = await seedDemoData(t, admin, product.baseUrl);

  const { page, context } = await product.page('desktop');
  const shots: Shot[] = [{ name: 'sign-in', title: 'Sign-in', url: '/sign-in' }];
  await page.goto('/sign-in');
  await settled(page);
  await page.screenshot({ path: path.join(OUT, 'sign-in.png') });

  await signInAs(product, context, admin);
  const screens = [
    ...(await menuScreens(page, records)),
    ...RECORD_SCREENS.map((s) => ({ ...s, url: s.url(records) })),
  ];
  for (const shot of screens) {
    await page.goto(shot.url);
    await settled(page);
    await page.screenshot({ path: path.join(OUT, `${shot.name}.png`) });
    shots.push(shot);
    console.log(`wrote plugins/admin-ui/screenshots/${shot.name}.png (${shot.url})`);
  }

  const kept = new Set(shots.map((s) => `${s.name}.png`));
  for (const file of readdirSync(OUT).filter((f) => f.endsWith('.png') && !kept.has(f))) {
    rmSync(path.join(OUT, file));
    console.log(`removed plugins/admin-ui/screenshots/${file} (no such screen any more)`);
  }
  rewriteReadmeSection(
    'admin-screenshots',
    galleryTable(shots.map((s) => ({ title: s.title, file: `plugins/admin-ui/screenshots/${s.name}.png` }))),
  );
  console.log(`README.md: gallery of ${shots.length} screens (run npx biome format --write README.md)`);
} finally {
  await product.close();
  await teardownTestDatabases();
}
