/**
 * A thumbnail of the canvas, made in the browser: the canvas document drawn through an SVG
 * `foreignObject` into a 2D canvas, as WebP. Images of the page are not in it (an SVG drawn as an
 * image loads nothing from outside); text, colours and layout are. Null when the browser refuses
 * (a tainted canvas, no WebP encoder) or the result is over the API's 400,000-character limit.
 */
export async function canvasThumbnail(source: Document, width = 480): Promise<string | null> {
  const root = source.documentElement;
  const viewWidth = Math.max(320, root.clientWidth || 1280);
  const viewHeight = Math.round(viewWidth * 0.75);
  const xhtml = new XMLSerializer().serializeToString(root);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${viewWidth}" height="${viewHeight}">` +
    `<foreignObject x="0" y="0" width="100%" height="100%">${xhtml}</foreignObject></svg>`;
  try {
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
    const url = canvas.toDataURL('image/webp', 0.8);
    return url.startsWith('data:image/webp') && url.length < 400_000 ? url : null;
  } catch {
    return null;
  }
}
