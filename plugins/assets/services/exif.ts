import exifReader from 'exif-reader';

/**
 * The metadata blocks sharp hands over raw (`metadata().exif`, `.iptc`), read for the tags people
 * search for. The bytes come from the uploader: EXIF (a TIFF structure of offsets) is read by
 * exif-reader, which bounds every read by the buffer and follows each directory once (no chains, so
 * no loops); a block it cannot read gives no fields instead of an error.
 */

type Value = string | number | number[];
type ExifGroups = ReturnType<typeof exifReader>;

/** Output field ← directory and tag name (exif-reader's names, from the Exif specification). */
const CAMERA_FIELDS: ReadonlyArray<readonly [field: string, group: 'Image' | 'Photo', tag: string]> = [
  ['make', 'Image', 'Make'],
  ['model', 'Image', 'Model'],
  ['orientation', 'Image', 'Orientation'],
  ['software', 'Image', 'Software'],
  ['modifiedAt', 'Image', 'DateTime'],
  ['artist', 'Image', 'Artist'],
  ['copyright', 'Image', 'Copyright'],
  ['description', 'Image', 'ImageDescription'],
  ['exposureTime', 'Photo', 'ExposureTime'],
  ['fNumber', 'Photo', 'FNumber'],
  ['iso', 'Photo', 'ISOSpeedRatings'],
  ['takenAt', 'Photo', 'DateTimeOriginal'],
  ['focalLength', 'Photo', 'FocalLength'],
  ['lensModel', 'Photo', 'LensModel'],
];
/** Longest list of numbers kept from one tag (a hostile count cannot make a response large). */
const MAX_VALUES = 64;

export interface ExifFields {
  camera: Record<string, Value>;
  gps: { latitude: number; longitude: number; altitude?: number } | null;
}

export function readExif(raw: Buffer | undefined): ExifFields {
  let groups: ExifGroups;
  try {
    if (!raw || raw.length < 14) return { camera: {}, gps: null };
    groups = exifReader(raw);
  } catch {
    return { camera: {}, gps: null };
  }
  const camera: Record<string, Value> = {};
  for (const [field, group, tag] of CAMERA_FIELDS) {
    const value = plain(groups[group]?.[tag]);
    if (value !== undefined) camera[field] = value;
  }
  return { camera, gps: gpsOf(groups.GPSInfo) };
}

/** A tag's value as JSON can carry it: text, a finite number or a short list of them; else undefined. */
function plain(value: unknown): Value | undefined {
  if (typeof value === 'string') return value.replace(/\0+$/, '').trim();
  // Text with bytes beyond ASCII arrives as bytes; cameras and editors write it as UTF-8.
  if (Buffer.isBuffer(value)) return value.toString('utf8').replace(/\0+$/, '').trim();
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  // Dates as the file states them (`YYYY:MM:DD HH:MM:SS`, no time zone).
  if (value instanceof Date)
    return Number.isNaN(value.getTime())
      ? undefined
      : value.toISOString().slice(0, 19).replace('T', ' ').replace(/-/g, ':');
  if (Array.isArray(value)) {
    const numbers = value.slice(0, MAX_VALUES).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    return numbers.length ? numbers : undefined;
  }
  return undefined;
}

function gpsOf(info: Record<string, unknown> | undefined): ExifFields['gps'] {
  if (!info) return null;
  const degrees = (v: unknown) => {
    const parts = plain(v);
    return Array.isArray(parts) && parts.length === 3 ? parts[0] + parts[1] / 60 + parts[2] / 3600 : undefined;
  };
  const lat = degrees(info.GPSLatitude);
  const lon = degrees(info.GPSLongitude);
  if (lat === undefined || lon === undefined) return null;
  const altitude = plain(info.GPSAltitude);
  return {
    latitude: round(plain(info.GPSLatitudeRef) === 'S' ? -lat : lat),
    longitude: round(plain(info.GPSLongitudeRef) === 'W' ? -lon : lon),
    ...(typeof altitude === 'number' ? { altitude: plain(info.GPSAltitudeRef) === 1 ? -altitude : altitude } : {}),
  };
}

const round = (n: number) => Math.round(n * 1e7) / 1e7;

const IPTC = new Map<number, string>([
  [5, 'title'],
  [25, 'keywords'],
  [80, 'byline'],
  [90, 'city'],
  [101, 'country'],
  [105, 'headline'],
  [110, 'credit'],
  [116, 'copyright'],
  [120, 'caption'],
]);

/**
 * IPTC-IIM records of dataset 2 (application records), as sharp returns them from the APP13 block.
 * IIM is a flat list (tag marker 0x1C, record, dataset, a two-byte length, the value): one forward pass
 * with each length checked against the buffer, no offsets to follow. No maintained npm package reads
 * IIM alone (the readers there are unmaintained, or full metadata suites that parse the whole file
 * again), so these few lines stay ours; `test/exif.test.ts` feeds them hostile blocks.
 */
export function readIptc(raw: Buffer | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!raw) return out;
  for (let i = 0; i + 5 <= raw.length; i++) {
    if (raw[i] !== 0x1c || raw[i + 1] !== 2) continue;
    const name = IPTC.get(raw[i + 2]);
    const length = raw.readUInt16BE(i + 3);
    if (i + 5 + length > raw.length) break;
    if (name) {
      const value = raw.toString('utf8', i + 5, i + 5 + length);
      if (name === 'keywords') out.keywords = [...((out.keywords as string[] | undefined) ?? []), value];
      else out[name] = value;
    }
    i += 4 + length;
  }
  return out;
}
