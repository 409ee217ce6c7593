/** How many leading bytes the type sniffer needs. */
export const SNIFF_BYTES = 4100;

export interface SniffedType {
  mimeType: string;
  /** Raster image sharp can decode (thumbnails, presets, transforms). */
  image: boolean;
  /** Safe to show inline in a browser; everything else is delivered as an attachment. */
  inline: boolean;
}

const t = (mimeType: string, image = false, inline = image): SniffedType => ({ mimeType, image, inline });

const startsWith = (b: Buffer, bytes: number[], offset = 0) => bytes.every((v, i) => b[offset + i] === v);
const ascii = (b: Buffer, text: string, offset = 0) =>
  b.length >= offset + text.length && b.toString('latin1', offset, offset + text.length) === text;

/**
 * The file's type from its first bytes, never from its name or the client's header. Markup (HTML,
 * SVG, XML) is recognised so it can be refused where only checkable types are allowed and delivered
 * as an attachment everywhere else; unknown binary is application/octet-stream.
 */
export function sniffType(head: Buffer): SniffedType {
  if (startsWith(head, [0xff, 0xd8, 0xff])) return t('image/jpeg', true);
  if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return t('image/png', true);
  if (ascii(head, 'GIF87a') || ascii(head, 'GIF89a')) return t('image/gif', true);
  if (ascii(head, 'RIFF') && ascii(head, 'WEBP', 8)) return t('image/webp', true);
  if (ascii(head, 'RIFF') && ascii(head, 'WAVE', 8)) return t('audio/wav', false, true);
  if (startsWith(head, [0x49, 0x49, 0x2a, 0x00]) || startsWith(head, [0x4d, 0x4d, 0x00, 0x2a]))
    return t('image/tiff', true, false);
  if (ascii(head, 'ftyp', 4)) {
    const brand = head.toString('latin1', 8, 12);
    if (brand === 'avif' || brand === 'avis') return t('image/avif', true);
    if (['heic', 'heix', 'mif1', 'msf1'].includes(brand)) return t('image/heic', true, false);
    if (brand.startsWith('qt')) return t('video/quicktime', false, true);
    if (brand.startsWith('M4A')) return t('audio/mp4', false, true);
    return t('video/mp4', false, true);
  }
  if (ascii(head, '%PDF-')) return t('application/pdf');
  if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return t('application/zip');
  if (startsWith(head, [0x1f, 0x8b])) return t('application/gzip');
  if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return t('video/webm', false, true);
  if (ascii(head, 'OggS')) return t('audio/ogg', false, true);
  // MPEG audio Layer III frame sync (versions 1, 2 and 2.5, with or without CRC: FFFB, FFFA, FFF3, FFF2, FFE3...).
  if (ascii(head, 'ID3') || (head[0] === 0xff && head.length > 1 && (head[1] & 0xe6) === 0xe2))
    return t('audio/mpeg', false, true);
  if (ascii(head, 'wOFF')) return t('font/woff');
  if (ascii(head, 'wOF2')) return t('font/woff2');
  if (startsWith(head, [0x7f, 0x45, 0x4c, 0x46]) || ascii(head, 'MZ')) return t('application/x-executable');
  return sniffText(head);
}

function sniffText(head: Buffer): SniffedType {
  if (head.length === 0) return t('application/octet-stream');
  if (head.includes(0)) return t('application/octet-stream');
  // The head may end inside a multi-byte character: decode without the last few bytes' doubt.
  const text = new TextDecoder('utf-8', { fatal: false }).decode(head).replace(/^\uFEFF/, '');
  if (text.slice(0, -4).includes('\uFFFD')) return t('application/octet-stream');
  const lead = text.replace(/^\s+/, '').slice(0, 1024).toLowerCase();
  const markup = stripPrologue(lead);
  if (markup.startsWith('<svg') || (lead.startsWith('<?xml') && /<svg[\s>]/.test(text.toLowerCase())))
    return t('image/svg+xml');
  if (/^<(!doctype html|html|head|body|script|iframe|meta|style|title|div|a\s|img)/.test(markup)) return t('text/html');
  if (lead.startsWith('<?xml')) return t('application/xml');
  if (lead.startsWith('#!')) return t('text/x-script');
  return t('text/plain');
}

/** Skips an XML declaration, comments and a doctype that is not HTML's. */
function stripPrologue(s: string): string {
  let rest = s;
  for (let i = 0; i < 20; i++) {
    const before = rest;
    rest = rest.replace(/^<\?xml[^>]*>\s*/, '').replace(/^<!--[\s\S]*?-->\s*/, '');
    if (!rest.startsWith('<!doctype html')) rest = rest.replace(/^<!doctype[^>]*>\s*/, '');
    if (rest === before) break;
  }
  return rest;
}

/** The usual file extension of a sniffed type (derived files, downloads). */
export function extensionOf(mimeType: string): string {
  const map: Record<string, string> = {
    'image/jpeg': 'jpg',
    'image/png': 'png',
    'image/gif': 'gif',
    'image/webp': 'webp',
    'image/avif': 'avif',
    'image/tiff': 'tiff',
  };
  return Object.hasOwn(map, mimeType) ? map[mimeType] : 'bin';
}
