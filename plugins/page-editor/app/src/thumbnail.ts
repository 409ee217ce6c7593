/** The API's limit on a stored thumbnail (`PUT .../thumbnail`), in characters of its data URL. */
const THUMBNAIL_MAX_CHARS = 400_000;
/** All inlined images together, in characters: keeps the drawing quick on a page of many images. */
const INLINE_BUDGET_CHARS = 3_000_000;
/** A transparent pixel: an image that could not be inlined keeps its place in the layout, empty. */
const BLANK = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

/**
 * An image of the canvas as a data URL no larger than the thumbnail needs: `scale` × its size on
 * the canvas (at least 1 px). Only images of this origin, fetched with the session (private assets
 * too); null when it cannot be had (another origin, an error, not an image).
 */
async function inlineImage(img: HTMLImageElement, scale: number): Promise<string | null> {
  const src = img.currentSrc || img.src;
  if (!src || src.startsWith('data:')) return src || null;
  const url = new URL(src, window.location.href);
  if (url.origin !== window.location.origin || img.width === 0 || img.height === 0) return null;
  const width = Math.max(1, Math.round(img.width * scale));
  const height = Math.max(1, Math.round(img.height * scale));
  try {
    const answer = await fetch(url, { credentials: 'same-origin' });
    // Only an image: a page naming an API address as an image source gets nothing from it.
    if (!answer.ok || !answer.headers.get('content-type')?.startsWith('image/')) return null;
    const bitmap = await createImageBitmap(await answer.blob(), {
      resizeWidth: width,
      resizeHeight: height,
      resizeQuality: 'medium',
    });
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    canvas.getContext('2d')?.drawImage(bitmap, 0, 0);
    bitmap.close();
    return canvas.toDataURL('image/webp', 0.8);
  } catch {
    return null;
  }
}

/**
 * A copy of the canvas document's root with each image of this origin inlined as a data URL (an
 * SVG drawn as an image loads nothing from outside, so a plain copy would show none of them),
 * without the editor's marks. The live canvas is left as it is.
 */
async function withInlinedImages(source: Document, scale: number): Promise<Element> {
  const copy = source.documentElement.cloneNode(true) as Element;
  const live = [...source.querySelectorAll('img')];
  const copies = [...copy.querySelectorAll('img')];
  const inlined = await Promise.all(live.map((img) => inlineImage(img, scale)));
  let budget = INLINE_BUDGET_CHARS;
  copies.forEach((img, i) => {
    const data = inlined[i];
    const fits = data !== null && data.length <= budget;
    if (fits) budget -= data.length;
    // The size it has on the canvas, so an empty stand-in keeps the layout.
    img.setAttribute('width', String(live[i].width));
    img.setAttribute('height', String(live[i].height));
    img.removeAttribute('srcset');
    img.removeAttribute('loading');
    img.setAttribute('src', fits ? data : BLANK);
  });
  // A <picture>'s sources would win over the inlined src.
  for (const source of copy.querySelectorAll('picture > source')) source.remove();
  // The editor's own marks (the selected node, hover and diff outlines) are not part of the page.
  copy.querySelector('#cms-editor-marks')?.remove();
  return copy;
}

/**
 * A thumbnail of the canvas, made in the browser: the canvas document drawn through an SVG
 * `foreignObject` into a 2D canvas, as WebP. Images of this origin are inlined first (scaled to
 * what the thumbnail shows of them); one that cannot be had leaves an empty place and no error.
 * Null when the browser refuses (no WebP encoder) or the result stays over the API's limit.
 */
export async function canvasThumbnail(source: Document, width = 480): Promise<string | null> {
  const root = source.documentElement;
  const viewWidth = Math.max(320, root.clientWidth || 1280);
  const viewHeight = Math.round(viewWidth * 0.75);
  try {
    // Twice the thumbnail's scale: the drawing is made at the canvas width, then scaled down.
    const copy = await withInlinedImages(source, Math.min(1, (2 * width) / viewWidth));
    const xhtml = new XMLSerializer().serializeToString(copy);
    const svg =
      `<svg xmlns="http://www.w3.org/2000/svg" width="${viewWidth}" height="${viewHeight}">` +
      `<foreignObject x="0" y="0" width="100%" height="100%">${xhtml}</foreignObject></svg>`;
    const image = new Image();
    image.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
    await image.decode();
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = Math.round((width * viewHeight) / viewWidth);
    const context = canvas.getContext('2d');
    if (!context) return null;
    context.fillStyle = '#fff';
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    // A page full of photographs may not fit at the first quality.
    for (const quality of [0.8, 0.5, 0.3]) {
      const url = canvas.toDataURL('image/webp', quality);
      if (!url.startsWith('data:image/webp')) return null;
      if (url.length < THUMBNAIL_MAX_CHARS) return url;
    }
    return null;
  } catch {
    return null;
  }
}
