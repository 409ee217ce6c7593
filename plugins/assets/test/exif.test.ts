import { expect } from 'chai';
import sharp from 'sharp';
import { readExif, readIptc } from '../services/exif.ts';

// Tag, type (2 ascii, 3 short, 4 long, 5 rational), count, and the 4-byte value or offset.
type Entry = [tag: number, type: number, count: number, value: number];

/** A little-endian TIFF block as sharp hands it over: `Exif\0\0`, header, IFD0 at 8, then `tail`. */
function exifBlock(entries: Entry[], tail: Buffer = Buffer.alloc(0), next = 0): Buffer {
  const ifd = Buffer.alloc(2 + entries.length * 12 + 4);
  ifd.writeUInt16LE(entries.length, 0);
  entries.forEach(([tag, type, count, value], i) => {
    const at = 2 + i * 12;
    ifd.writeUInt16LE(tag, at);
    ifd.writeUInt16LE(type, at + 2);
    ifd.writeUInt32LE(count, at + 4);
    ifd.writeUInt32LE(value, at + 8);
  });
  ifd.writeUInt32LE(next, ifd.length - 4);
  const header = Buffer.from([0x49, 0x49, 0x2a, 0, 8, 0, 0, 0]);
  return Buffer.concat([Buffer.from('Exif\0\0', 'latin1'), header, ifd, tail]);
}

/** Every field is something JSON carries as it is: no NaN or Infinity, no long lists. */
function assertJsonSafe(value: unknown): void {
  const text = JSON.stringify(value);
  expect(JSON.parse(text)).to.deep.equal(value);
  expect(text.length).to.be.lessThan(10_000);
}

describe('assets: EXIF and IPTC from untrusted bytes', () => {
  let real: Buffer;
  before(async () => {
    const photo = await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 1, g: 2, b: 3 } } })
      .jpeg()
      .withExif({
        IFD0: { Make: 'Canon', Model: 'EOS R5', Artist: 'Ann', DateTime: '2024:05:06 07:08:09' },
        IFD2: {
          ExposureTime: '1/250',
          FNumber: '28/10',
          LensModel: 'RF 24-70',
          DateTimeOriginal: '2024:05:06 07:08:09',
        },
        IFD3: {
          GPSLatitudeRef: 'S',
          GPSLatitude: '48/1 51/1 2964/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 17/1 40/1',
        },
      })
      .toBuffer();
    real = (await sharp(photo).metadata()).exif!;
  });

  it('reads the camera fields, dates as written and signed GPS of a real block', () => {
    const { camera, gps } = readExif(real);
    expect(camera).to.include({
      make: 'Canon',
      model: 'EOS R5',
      artist: 'Ann',
      lensModel: 'RF 24-70',
      exposureTime: 0.004,
      fNumber: 2.8,
      modifiedAt: '2024:05:06 07:08:09',
      takenAt: '2024:05:06 07:08:09',
    });
    expect(gps!.latitude).to.be.closeTo(-48.85823, 1e-4);
    expect(gps!.longitude).to.be.closeTo(2.29444, 1e-4);
  });

  it('gives nothing, and never throws, for absent, short or foreign blocks', () => {
    for (const raw of [
      undefined,
      Buffer.alloc(0),
      Buffer.from('Exif\0\0'),
      Buffer.alloc(100, 0xff),
      Buffer.from('MM\0*'),
    ])
      expect(readExif(raw)).to.deep.equal({ camera: {}, gps: null });
  });

  it('survives the real block cut at every length', () => {
    for (let n = 0; n <= real.length; n++) assertJsonSafe(readExif(real.subarray(0, n)));
  });

  it('ignores entries whose counts or offsets point far past the block, quickly', () => {
    const started = performance.now();
    const out = readExif(
      exifBlock([
        [0x010f, 2, 0xffffffff, 0x7ffffff0], // Make: 4 GiB of text far outside
        [0x0110, 3, 0xffffffff, 60], // Model: four billion shorts from inside the block
        [0x0112, 5, 0x40000000, 26], // Orientation: a billion rationals
        [0x8825, 4, 1, 0xfffffff0], // GPS directory far outside
      ]),
    );
    assertJsonSafe(out);
    expect(out.gps).to.equal(null);
    expect(performance.now() - started).to.be.lessThan(1000);
  });

  it('claims of 65,535 entries in a short directory end at the end of the block', () => {
    const block = exifBlock([[0x010f, 2, 4, 0x41424300]]);
    block.writeUInt16LE(0xffff, 6 + 8); // IFD0's entry count
    assertJsonSafe(readExif(block));
  });

  it('directories pointing at themselves or each other are read once (no loop)', () => {
    // IFD0 at 8 names itself as the Exif and the GPS directory and as the next one.
    const out = readExif(
      exifBlock(
        [
          [0x8769, 4, 1, 8],
          [0x8825, 4, 1, 8],
        ],
        Buffer.alloc(0),
        8,
      ),
    );
    assertJsonSafe(out);
  });

  it('text beyond ASCII is read as UTF-8', () => {
    const text = Buffer.from('Zoë\0', 'utf8');
    const tailAt = 2 + 12 + 4 + 8; // after the header and a directory of one entry
    expect(readExif(exifBlock([[0x013b, 2, text.length, tailAt]], text)).camera).to.deep.equal({ artist: 'Zoë' });
  });

  it('a rational over zero gives no field instead of Infinity or NaN', () => {
    const rationals = Buffer.alloc(16);
    rationals.writeUInt32LE(1, 0); // 1/0
    rationals.writeUInt32LE(0, 4);
    rationals.writeUInt32LE(0, 8); // 0/0
    rationals.writeUInt32LE(0, 12);
    const ifdEnd = 6 + 8 + 2 + 2 * 12 + 4 - 6; // offsets count from the TIFF header
    const out = readExif(
      exifBlock(
        [
          [0x829a, 5, 1, ifdEnd],
          [0x829d, 5, 1, ifdEnd + 8],
        ],
        rationals,
      ),
    );
    assertJsonSafe(out);
    expect(out.camera).to.not.have.any.keys('exposureTime', 'fNumber');
  });

  it('reads IPTC records (title, keywords, copyright), skipping other records', () => {
    const rec = (n: number, v: string, record = 2) =>
      Buffer.concat([Buffer.from([0x1c, record, n]), Buffer.from([0, v.length]), Buffer.from(v)]);
    const out = readIptc(
      Buffer.concat([
        rec(5, 'Title'),
        rec(25, 'a'),
        rec(1, 'envelope', 1),
        rec(25, 'b'),
        rec(116, '(c) me'),
        Buffer.from([0x1c, 2, 120, 0xff, 0xff]),
      ]),
    );
    expect(out).to.deep.equal({ title: 'Title', keywords: ['a', 'b'], copyright: '(c) me' });
  });

  it('IPTC cut at every length, with lengths past the end or a marker at the very end, never throws', () => {
    const block = Buffer.concat([
      Buffer.from([0x1c, 2, 5, 0, 3]),
      Buffer.from('abc'),
      Buffer.from([0x1c, 2, 25, 0xff, 0xff, 0x41]),
      Buffer.from([0x1c, 2]),
    ]);
    for (let n = 0; n <= block.length; n++) assertJsonSafe(readIptc(block.subarray(0, n)));
    expect(readIptc(block)).to.deep.equal({ title: 'abc' });
    expect(readIptc(undefined)).to.deep.equal({});
  });
});
