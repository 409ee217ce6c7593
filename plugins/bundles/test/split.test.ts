import { createServer, type Server } from 'node:http';
import { expect } from 'chai';
import { startTestKernel, type TestKernel } from '../../../test/helpers/kernel.ts';
import { pdf } from '../../../test/helpers/media.ts';
import { rawZip, readZip } from '../../../test/helpers/zip.ts';

const TOKEN = 'split-bundle-service-token-0123456789';

/** A real HTTP front for a test kernel (the asset-processor core-api calls over the network). */
async function serve(t: TestKernel): Promise<{ url: string; server: Server; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer(async (req, res) => {
    seen.push(`${req.method} ${req.url} ${req.headers.authorization === `Bearer ${TOKEN}` ? 'token' : 'none'}`);
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const out = await t.inject({
      method: req.method as 'GET',
      url: req.url!,
      headers: req.headers as Record<string, string>,
      payload: Buffer.concat(chunks),
    });
    res.writeHead(out.statusCode, out.headers as Record<string, string>);
    res.end(out.rawPayload);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api/v1`, server, seen };
}

describe('bundles in the split deployment: core-api asks the asset-processor for files over HTTP', function () {
  this.timeout(60_000);
  let processor: TestKernel;
  let core: TestKernel;
  let front: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    processor = await startTestKernel({ plugins: ['assets'], ownDataDir: true, env: { DAM_SERVICE_TOKEN: TOKEN } });
    front = await serve(processor);
    core = await startTestKernel({
      plugins: ['data', 'content', 'assets', 'bundles'],
      ownDataDir: true,
      env: { DAM_SERVICE_TOKEN: TOKEN, ASSET_SERVICE_URL: front.url },
    });
  });
  after(async () => {
    await core?.close();
    await processor?.close();
    front?.server.close();
  });

  it('export reads the bytes from the asset-processor; import stores new files there', async () => {
    const boundary = '----split';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="folder"\r\n\r\ndocs\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="guide.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      pdf(),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const pAdmin = await processor.admin();
    const up = await processor.inject({
      method: 'POST',
      url: '/api/v1/dam/upload',
      payload: body,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, cookie: pAdmin.cookie },
    });
    expect(up.statusCode, up.body).to.equal(201);
    const admin = await core.admin();
    const site = (await core.call('POST', '/cms-one/websites', admin, { name: 'Split', rootPath: '/split' })).json();
    const page = await core.call('POST', '/cms-one/pages', admin, {
      websiteId: site.id,
      locale: 'en',
      path: '/guide',
      title: 'Guide',
      content: { type: 'a', props: { href: '/dam-asset/docs/guide.pdf' } },
    });
    expect(page.statusCode, page.body).to.equal(201);
    // core-api's own library is empty: the file can only come from the asset-processor.
    expect(Number((await core.db('assets').count('* as n'))[0].n)).to.equal(0);
    const res = await core.inject({
      method: 'GET',
      url: `/cms-one/websites/${site.id}/export`,
      headers: { cookie: admin.cookie },
    });
    expect(res.statusCode, res.body).to.equal(200);
    const entries = await readZip(res.rawPayload);
    expect(entries.get('assets/0001-guide.pdf')!.equals(pdf())).to.equal(true);
    expect(front.seen.some((l) => l.startsWith('GET /api/v1/dam/bundle-files/') && l.endsWith('token'))).to.equal(true);

    const manifest = JSON.parse(entries.get('bundle.json')!.toString());
    manifest.website.rootPath = '/split-copy';
    manifest.assets[0].path = 'imported/guide.pdf';
    const zip = rawZip([
      { name: 'bundle.json', data: JSON.stringify(manifest) },
      { name: 'assets/0001-guide.pdf', data: pdf() },
    ]);
    const imported = await core.inject({
      method: 'POST',
      url: '/cms-one/websites/import',
      payload: zip,
      headers: { 'content-type': 'application/zip', cookie: admin.cookie },
    });
    expect(imported.statusCode, imported.body).to.equal(201);
    expect(imported.json().assets).to.include({ uploaded: 1 });
    const stored = await processor.db('assets').where({ path: 'imported/guide.pdf' }).first();
    expect(stored).to.include({ mime_type: 'application/pdf' });
    const copy = await core.call('GET', '/public/pages/en/split-copy/guide', null);
    expect(copy.statusCode).to.equal(404); // a draft: the source page was not published
    const row = await core.db('content_pages').where({ path: '/guide' }).whereNot({ website_id: site.id }).first();
    expect(row.content.props.href).to.equal('/dam-asset/imported/guide.pdf');
  });

  it('the service routes refuse calls without the token', async () => {
    const res = await processor.inject({
      method: 'POST',
      url: '/api/v1/dam/bundle-files/describe',
      payload: { references: [] },
    });
    expect(res.statusCode).to.equal(401);
  });
});
