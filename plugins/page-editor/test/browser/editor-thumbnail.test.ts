import { expect } from 'chai';
import sharp from 'sharp';
import { appErrors, type BrowserProduct, sharedBrowserProduct } from '../../../../test/helpers/browser.ts';
import { eventually, type TestUser } from '../../../../test/helpers/kernel.ts';
import { canvas, openEditor, status, uploadImage } from './editor-page.ts';

/** Pixels of a stored thumbnail (a WebP data URL) that are clearly red: the test image's colour. */
async function redPixels(thumbnail: string): Promise<number> {
  const bytes = Buffer.from(thumbnail.replace(/^data:image\/webp;base64,/, ''), 'base64');
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let red = 0;
  for (let i = 0; i < data.length; i += info.channels) if (data[i] > 180 && data[i + 1] < 80 && data[i + 2] < 80) red++;
  return red;
}

describe('page editor in the browser: thumbnails show the page images', function () {
  this.timeout(180_000);
  let p: BrowserProduct;
  let admin: TestUser;
  let editor: TestUser;
  let websiteId: string;
  let folder: string;
  before(async function () {
    this.timeout(240_000);
    p = await sharedBrowserProduct();
    admin = await p.t.admin();
    editor = await p.t.createUser({ permissions: ['objects:read', 'pages:edit'] });
    const stamp = Date.now().toString(36);
    const site = await p.t.call('POST', '/cms-one/websites', admin, {
      name: 'Thumbnail site',
      rootPath: `/thumb${stamp}`,
      locales: ['en'],
    });
    expect(site.statusCode, site.body).to.equal(201);
    websiteId = site.json().id;
    folder = `/thumbs-${stamp}`;
    // Opaque red: easy to find in the thumbnail.
    const red = await sharp({ create: { width: 600, height: 300, channels: 3, background: '#e00000' } })
      .png()
      .toBuffer();
    await uploadImage(p, admin, folder, 'red.png', red);
  });

  /** A page of a heading and `images`, saved by hand in the editor; answers its stored thumbnail. */
  const thumbnailOf = async (path: string, images: Array<{ src: string; alt: string }>) => {
    const content = {
      type: 'section',
      children: [{ type: 'h1', text: 'Thumbnail' }, ...images.map((props) => ({ type: 'img', props }))],
    };
    const res = await p.t.call('POST', '/cms-one/pages', admin, {
      websiteId,
      locale: 'en',
      path,
      title: path,
      content,
    });
    expect(res.statusCode, res.body).to.equal(201);
    const id = res.json().id as string;
    const { page: tab, errors } = await openEditor(p, editor, `/cms-one/editor/pages/${id}`);
    await canvas(tab).locator('h1').click();
    await tab.getByLabel('Text').fill(`Thumbnail of ${path}`);
    await tab.getByRole('button', { name: 'Save', exact: true }).click();
    await status(tab)
      .filter({ hasText: /^Saved$/ })
      .waitFor();
    let thumbnail = '';
    await eventually(async () => {
      const stored = await p.t.call('GET', `/cms-one/pages/${id}`, admin);
      thumbnail = stored.json().thumbnail ?? '';
      expect(thumbnail).to.match(/^data:image\/webp;base64,/);
    });
    await tab.context().close();
    return { thumbnail, errors: appErrors(errors) };
  };

  it('draws the images of this origin into the thumbnail; one that fails leaves a place and the save stands', async () => {
    const plain = await thumbnailOf('/plain', []);
    const pictured = await thumbnailOf('/pictured', [{ src: `/dam-asset${folder}/red.png`, alt: 'Red' }]);
    expect(plain.errors).to.deep.equal([]);
    expect(pictured.errors).to.deep.equal([]);
    expect(await redPixels(plain.thumbnail)).to.equal(0);
    // The image is 600 × 300 px on a page about 900 px wide, drawn into 480 px: thousands of pixels.
    expect(await redPixels(pictured.thumbnail)).to.be.greaterThan(5_000);
    expect(pictured.thumbnail.length).to.be.lessThan(400_000);

    // Missing, of another origin: left out, the thumbnail is still made and stored.
    const broken = await thumbnailOf('/broken', [
      { src: `/dam-asset${folder}/missing.png`, alt: 'Missing' },
      { src: 'https://images.example.invalid/x.png', alt: 'Elsewhere' },
      { src: `/dam-asset${folder}/red.png`, alt: 'Red' },
    ]);
    expect(await redPixels(broken.thumbnail)).to.be.greaterThan(5_000);
    expect(broken.errors.filter((e) => !/status of 404|ERR_NAME_NOT_RESOLVED|net::/.test(e))).to.deep.equal([]);
  });
});
