import fs from 'node:fs/promises';
import { expect } from 'chai';
import {
  appErrors,
  type BrowserProduct,
  expectAccessible,
  sharedBrowserProduct,
  heading,
  signIn,
} from '../../../../test/helpers/browser.ts';
import { auditRows, eventually } from '../../../../test/helpers/kernel.ts';

describe('data-subject screen in the browser: search, export, dry run and erase', function () {
  this.timeout(120_000);
  let p: BrowserProduct;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
  });

  it('finds a person in objects of two classes and a staff account, exports them and erases after a dry run', async () => {
    const admin = await p.t.admin();
    const suffix = Date.now().toString(36);
    const email = `anna.${suffix}@example.test`;
    const ok = async (url: string, body: unknown) => {
      const res = await p.t.call('POST', url, admin, body);
      expect(res.statusCode, res.body).to.equal(201);
      return res.json();
    };
    await ok('/data-classes', {
      name: `customer_${suffix}`,
      label: 'Customer',
      fields: [{ name: 'email', type: 'text' }],
    });
    await ok('/data-classes', { name: `ticket_${suffix}`, label: 'Ticket', fields: [{ name: 'from', type: 'text' }] });
    await ok('/data-objects', { className: `customer_${suffix}`, key: 'anna', attributes: { email } });
    await ok('/data-objects', { className: `ticket_${suffix}`, key: 't1', attributes: { from: email.toUpperCase() } });
    // A value that only contains the address is not the address: it is neither found nor erased.
    const other = await ok('/data-objects', {
      className: `ticket_${suffix}`,
      key: 't2',
      attributes: { from: `Write to ${email}` },
    });
    await p.t.createUser({ email, roles: ['viewer'] });

    const { page, errors } = await p.page();
    await signIn(page, admin, '/admin/data-subject');
    await heading(page, 'Data-subject requests').waitFor();
    await expectAccessible(page, 'data-subject search form');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByText('Enter the e-mail address or other value to look for').waitFor();
    await page.getByLabel('Identifier').fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('heading', { name: `3 records found for ${email}` }).waitFor();
    expect(page.url()).not.to.contain(encodeURIComponent(email)).and.not.to.contain(email);
    await page.getByRole('button', { name: 'Objects: 2' }).waitFor();
    await page.getByRole('button', { name: /^Staff accounts: 1 \(reported only/ }).waitFor();
    await page.getByRole('button', { name: 'Files: 0' }).waitFor();
    const objects = page.getByRole('region', { name: 'Objects found' });
    await objects.getByRole('cell', { name: `customer_${suffix}`, exact: true }).waitFor();
    await objects.getByRole('cell', { name: `ticket_${suffix}`, exact: true }).waitFor();
    await expectAccessible(page, 'data-subject results');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download the export (JSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).to.match(/^data-subject-[0-9a-f]{12}\.json$/);
    const exported = JSON.parse(await fs.readFile((await download.path())!, 'utf8'));
    expect(exported.records.objects).to.have.length(2);
    expect(exported.records.accounts).to.have.length(1);
    await page.getByText(`Export downloaded as ${download.suggestedFilename()}`).waitFor();

    await page.getByRole('button', { name: 'Dry run: what would be erased' }).click();
    await page.getByText('A real erase would remove 2 objects.').waitFor();
    await page
      .getByText(/1 staff account reported only/)
      .first()
      .waitFor();
    const stillThere = await p.t.call('POST', '/data-subject/search', admin, { identifier: email });
    expect(stillThere.json().counts.objects, 'the dry run changed nothing').to.equal(2);
    await expectAccessible(page, 'data-subject dry run');

    await page.getByRole('button', { name: 'Erase…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`This removes 2 objects that hold ${email}.`).waitFor();
    const confirm = dialog.getByRole('button', { name: 'Erase 2 objects' });
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel('Type the identifier again to confirm').fill('someone-else@example.test');
    expect(await confirm.isDisabled()).to.equal(true);
    await dialog.getByLabel('Type the identifier again to confirm').fill(email);
    // Enabled re-colours the button through a transition: axe reads it once that has begun and ended.
    await eventually(async () => expect(await confirm.isEnabled()).to.equal(true), {
      what: 'the enabled Erase button',
    });
    await expectAccessible(page, 'erase confirmation');
    await confirm.click();
    await page.getByText('Removed 2 objects.').waitFor();
    await page.getByRole('heading', { name: `1 record found for ${email}` }).waitFor();
    const after = (await p.t.call('POST', '/data-subject/search', admin, { identifier: email })).json();
    expect(after.counts).to.deep.include({ objects: 0, accounts: 1 });
    expect((await p.t.call('GET', `/data-objects/${other.id}`, admin)).statusCode).to.equal(200);
    const audit = await auditRows(p.t, 'data_subject.erase');
    expect(JSON.stringify(audit)).not.to.contain(email);

    const phone = await p.page('phone');
    await signIn(phone.page, admin, '/admin/data-subject');
    await phone.page.getByLabel('Identifier').fill(email);
    await phone.page.getByRole('button', { name: 'Search' }).click();
    await phone.page.getByRole('heading', { name: `1 record found for ${email}` }).waitFor();
    await expectAccessible(phone.page, 'data-subject results at 390 px');
    expect(appErrors(errors)).to.deep.equal([]);
    expect(appErrors(phone.errors)).to.deep.equal([]);
  });

  it('lists what a file-store failure kept, and running the erase again finishes the job', async () => {
    const admin = await p.t.admin();
    const email = `bert.${Date.now().toString(36)}@example.test`;
    const { page, context, errors } = await p.page();
    await signIn(page, admin, '/admin/data-subject');
    await heading(page, 'Data-subject requests').waitFor();
    const uploaded = await context.request.post('/api/v1/dam/upload', {
      multipart: {
        folder: 'people',
        visibility: 'private',
        metadata: JSON.stringify({ signedBy: email }),
        file: { name: 'contract.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.4\n%%EOF\n') },
      },
    });
    expect(uploaded.status(), await uploaded.text()).to.equal(201);
    const file = (await uploaded.json()) as { id: string; path: string };
    // Her own upload through a public form (as the form attach records it), named by her object: only
    // such a file is erased with her.
    await p.t
      .db('assets')
      .where({ id: file.id })
      .update({ form_upload_id: p.t.db.raw('gen_random_uuid()') });
    const suffix = Date.now().toString(36);
    for (const [url, body] of [
      [
        '/data-classes',
        {
          name: `signup_${suffix}`,
          fields: [
            { name: 'email', type: 'text' },
            { name: 'cv', type: 'asset' },
          ],
        },
      ],
      ['/data-objects', { className: `signup_${suffix}`, attributes: { email, cv: file.path } }],
    ] as const) {
      const res = await p.t.call('POST', url, admin, body);
      expect(res.statusCode, res.body).to.equal(201);
    }

    await page.getByLabel('Identifier').fill(email);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: 'Files: 1' }).waitFor();
    await page.getByRole('region', { name: 'Files found' }).getByRole('cell', { name: file.path }).waitFor();
    await page.getByRole('button', { name: 'Dry run: what would be erased' }).click();
    await page.getByText('A real erase would remove 1 file and 1 object.').waitFor();

    // The file store refuses to delete the file's bytes during the first real erase.
    const storage = p.t.services<{ storage: { deletePrefix(prefix: string): Promise<number> } }>('assets').storage;
    const original = storage.deletePrefix.bind(storage);
    storage.deletePrefix = async (prefix) => {
      if (prefix.includes(file.id)) throw new Error('store unavailable');
      return original(prefix);
    };
    try {
      await page.getByRole('button', { name: 'Erase…' }).click();
      await page.getByRole('dialog').getByLabel('Type the identifier again to confirm').fill(email);
      await page.getByRole('dialog').getByRole('button', { name: 'Erase 1 file and 1 object' }).click();
      await page.getByText('Erased in part').waitFor();
      await page
        .getByRole('alert')
        .filter({ hasText: '2 records kept' })
        .getByText(/^Files people\/contract\.pdf: .*store unavailable/)
        .waitFor();
      await expectAccessible(page, 'erase with a kept record');
    } finally {
      storage.deletePrefix = original;
    }
    expect(await p.t.db('assets').where({ id: file.id }).first()).to.not.equal(undefined);

    await page.getByRole('button', { name: 'Run the erase again' }).click();
    await page.getByText('Removed 1 file and 1 object.').waitFor();
    await page.getByRole('status').filter({ hasText: 'Erased' }).first().waitFor();
    expect(await page.getByRole('button', { name: 'Run the erase again' }).count()).to.equal(0);
    await page.getByRole('heading', { name: `Nothing found for ${email}` }).waitFor();
    expect(await p.t.db('assets').where({ id: file.id }).first()).to.equal(undefined);
    expect(appErrors(errors)).to.deep.equal([]);
  });

  it('is not offered without data_subject:manage', async () => {
    const manager = await p.t.createUser({ permissions: ['users:manage'] });
    const { page, errors } = await p.page();
    await signIn(page, manager, '/admin/data-subject');
    await page.getByRole('alert').filter({ hasText: 'Not allowed' }).waitFor();
    expect(
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Data-subject requests' }).count(),
    ).to.equal(0);
    expect(appErrors(errors)).to.deep.equal([]);
  });
});
