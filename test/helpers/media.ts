/** Small, well-formed PDF, MP4 and MP3 files (the structure their readers need), for upload checks. */

/** A one-page-tree PDF whose `startxref` points at its cross-reference table. */
export function pdf(): Buffer {
  const objects = [
    '1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n',
    '2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\n',
  ];
  let text = '%PDF-1.4\n';
  const offsets = objects.map((o) => {
    const at = text.length;
    text += o;
    return at;
  });
  const xref = text.length;
  text += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const at of offsets) text += `${String(at).padStart(10, '0')} 00000 n \n`;
  text += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(text, 'latin1');
}

/** One ISO base media box: 32-bit size, four-letter type, payload. */
export function box(type: string, payload: Buffer): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(8 + payload.length, 0);
  header.write(type, 4, 'latin1');
  return Buffer.concat([header, payload]);
}

/** `ftyp`, `moov` (with an empty `mvhd`) and `mdat`: boxes from the first byte to the last. */
export function mp4(): Buffer {
  return Buffer.concat([
    box('ftyp', Buffer.concat([Buffer.from('isom'), Buffer.from([0, 0, 2, 0]), Buffer.from('isomiso2')])),
    box('moov', box('mvhd', Buffer.alloc(100))),
    box('mdat', Buffer.alloc(256, 0x11)),
  ]);
}

/** An ID3v2 tag, three MPEG-1 Layer III frames (128 kbit/s, 44.1 kHz: 417 bytes each) and an ID3v1 tag. */
export function mp3(): Buffer {
  const id3 = Buffer.concat([Buffer.from('ID3'), Buffer.from([3, 0, 0, 0, 0, 0, 20]), Buffer.alloc(20)]);
  const frame = Buffer.concat([Buffer.from([0xff, 0xfb, 0x90, 0x64]), Buffer.alloc(413, 0x55)]);
  const id3v1 = Buffer.concat([Buffer.from('TAG'), Buffer.alloc(125, 0x20)]);
  return Buffer.concat([id3, frame, frame, frame, id3v1]);
}
