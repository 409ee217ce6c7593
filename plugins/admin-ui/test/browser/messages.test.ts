import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  heading,
  sharedBrowserProduct,
  signInAs,
} from '../../../../test/helpers/browser.ts';
import type { TestUser } from '../../../../test/helpers/kernel.ts';

/** Messages a person understands: one toast per failure, permissions shown as the role has them. */
describe('admin-ui in the browser: messages and what the role editor shows', function () {
  this.timeout(120_000);
  let p: BrowserProduct;
  let admin: TestUser;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
  });

  async function role(permissions: string[]) {
    const name = `msg-role-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
    const created = await p.t.call('POST', '/auth/roles', admin, { name, permissions });
    expect(created.statusCode, created.body).to.equal(201);
    return { ...(created.json() as { id: string }), name };
  }

  it('shows the keys a role gets through another key as ticked, and a repeated failure as one toast', async () => {
    const all = (await p.t.call('GET', '/auth/permissions', admin)).json() as {
      permissions: { key: string; grantedBy: string[] }[];
    };
    const implied = all.permissions.find((k) => k.grantedBy.includes('objects:write'));
    expect(implied, 'a key granted by objects:write').to.not.equal(undefined);
    const other = await role(['objects:read']);
    const edited = await role(['objects:write']);

    const { page, context, errors } = await p.page();
    await signInAs(p, context, admin);
    await page.goto(`/admin/roles/${edited.id}`);
    await heading(page, edited.name).waitFor();
    const box = page.getByRole('checkbox', { name: implied!.key, exact: true });
    expect(await box.isChecked()).to.equal(true);
    expect(await box.isDisabled()).to.equal(true);
    await page.getByText(`(granted by objects:write)`).first().waitFor();
    await expectAccessible(page, 'role with granted keys');

    // A name another role has: the refusal lands on its field.
    await page.getByLabel('Name').fill(other.name);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('name is already in use').waitFor();

    // Deleted meanwhile (another tab): the same refusal twice is one notification, not two.
    expect((await p.t.call('DELETE', `/auth/roles/${edited.id}`, admin)).statusCode).to.equal(204);
    await page.getByLabel('Description').fill('Changed after it was deleted');
    const toast = page.getByRole('alert').filter({ hasText: 'Not saved' });
    const answered = () => page.waitForResponse((r) => r.request().method() === 'PATCH' && r.status() === 404);
    await Promise.all([answered(), page.getByRole('button', { name: 'Save' }).click()]);
    await toast.first().waitFor();
    await Promise.all([answered(), page.getByRole('button', { name: 'Save' }).click()]);
    await page.waitForTimeout(300);
    expect(await toast.count()).to.equal(1);
    await expectAccessible(page, 'one notification of a refused save');
    // The browser reports the refused requests themselves; nothing else went wrong.
    expect(appErrors(errors).filter((e) => !/status of (409|404) /.test(e))).to.deep.equal([]);
  });
});
