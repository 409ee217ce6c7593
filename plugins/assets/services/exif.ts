/**
 * Readers for the metadata blocks sharp hands over raw: EXIF (a TIFF structure) and IPTC (IIM
 * records). Only the tags people search for are read; every offset is bounds-checked, since the
 * bytes come from the uploader.
 */

const TAGS: Record<number, string> = {
  0x010f: 'make',
  0x0110: 'model',
  0x0112: 'orientation',
  0x0131: 'software',
  0x0132: 'modifiedAt',
  0x013b: 'artist',
  0x8298: 'copyright',
  0x829a: 'exposureTime',
  0x829d: 'fNumber',
  0x8827: 'iso',
  0x9003: 'takenAt',
  0x920a: 'focalLength',
  0xa434: 'lensModel',
  0x010e: 'description',
};
const GPS_TAGS: Record<number, string> = {
  1: 'latitudeRef',
  2: 'latitude',
  3: 'longitudeRef',
  4: 'longitude',
  5: 'altitudeRef',
  6: 'altitude',
};
const TYPE_SIZES: Record<number, number> = { 1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8 };

type Value = string | number | number[];

export function readExif(raw: Buffer | undefined): {
  camera: Record<string, Value>;
  gps: { latitude: number; longitude: number; altitude?: number } | null;
} {
  const camera: Record<string, Value> = {};
  let gps: { latitude: number; longitude: number; altitude?: number } | null = null;
  if (!raw || raw.length < 14) return { camera, gps };
  const tiff = raw.toString('latin1', 0, 6) === 'Exif\0\0' ? raw.subarray(6) : raw;
  const little = tiff.toString('latin1', 0, 2) === 'II';
  if (!little && tiff.toString('latin1', 0, 2) !== 'MM') return { camera, gps };
  const u16 = (o: number) => (o + 2 <= tiff.length ? (little ? tiff.readUInt16LE(o) : tiff.readUInt16BE(o)) : 0);
  const u32 = (o: number) => (o + 4 <= tiff.length ? (little ? tiff.readUInt32LE(o) : tiff.readUInt32BE(o)) : 0);
  const i32 = (o: number) => (o + 4 <= tiff.length ? (little ? tiff.readInt32LE(o) : tiff.readInt32BE(o)) : 0);

  const readIfd = (
    offset: number,
    names: Record<number, string>,
    out: Record<string, Value>,
  ): { exif?: number; gps?: number } => {
    const pointers: { exif?: number; gps?: number } = {};
    const count = u16(offset);
    if (offset <= 0 || offset + 2 + count * 12 > tiff.length || count > 500) return pointers;
    for (let i = 0; i < count; i++) {
      const entry = offset + 2 + i * 12;
      const tag = u16(entry);
      const type = u16(entry + 2);
      const n = u32(entry + 4);
      if (tag === 0x8769) pointers.exif = u32(entry + 8);
      if (tag === 0x8825) pointers.gps = u32(entry + 8);
      const name = names[tag];
      const size = (TYPE_SIZES[type] ?? 0) * n;
      if (!name || size === 0 || n > 4096) continue;
      const at = size <= 4 ? entry + 8 : u32(entry + 8);
      if (at + size > tiff.length) continue;
      if (type === 2)
        out[name] = tiff
          .toString('utf8', at, at + n)
          .replace(/\0+$/, '')
          .trim();
      else if (type === 3) out[name] = n === 1 ? u16(at) : Array.from({ length: n }, (_, k) => u16(at + 2 * k));
      else if (type === 4 || type === 9) out[name] = type === 4 ? u32(at) : i32(at);
      else if (type === 5 || type === 10) {
        const values = Array.from({ length: n }, (_, k) => {
          const den = type === 5 ? u32(at + 8 * k + 4) : i32(at + 8 * k + 4);
          return den === 0 ? 0 : (type === 5 ? u32(at + 8 * k) : i32(at + 8 * k)) / den;
        });
        out[name] = n === 1 ? values[0] : values;
      } else if (type === 1 || type === 7)
        out[name] = n === 1 ? tiff[at] : Array.from(tiff.subarray(at, at + Math.min(n, 8)));
    }
    return pointers;
  };

  const first = readIfd(u32(4), TAGS, camera);
  if (first.exif) readIfd(first.exif, TAGS, camera);
  if (first.gps) {
    const g: Record<string, Value> = {};
    readIfd(first.gps, GPS_TAGS, g);
    const degrees = (v: Value | undefined) =>
      Array.isArray(v) && v.length === 3 ? v[0] + v[1] / 60 + v[2] / 3600 : undefined;
    const lat = degrees(g.latitude);
    const lon = degrees(g.longitude);
    if (lat !== undefined && lon !== undefined) {
      gps = {
        latitude: round(g.latitudeRef === 'S' ? -lat : lat),
        longitude: round(g.longitudeRef === 'W' ? -lon : lon),
        ...(typeof g.altitude === 'number' ? { altitude: g.altitudeRef === 1 ? -g.altitude : g.altitude } : {}),
      };
    }
  }
  return { camera, gps };
}

const round = (n: number) => Math.round(n * 1e7) / 1e7;

const IPTC: Record<number, string> = {
  5: 'title',
  25: 'keywords',
  80: 'byline',
  90: 'city',
  101: 'country',
  105: 'headline',
  110: 'credit',
  116: 'copyright',
  120: 'caption',
};

/** IPTC-IIM records of dataset 2 (application records), as sharp returns them from the APP13 block. */
export function readIptc(raw: Buffer | undefined): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!raw) return out;
  for (let i = 0; i + 5 <= raw.length; i++) {
    if (raw[i] !== 0x1c || raw[i + 1] !== 2) continue;
    const name = IPTC[raw[i + 2]];
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
