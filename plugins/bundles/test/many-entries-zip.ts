/**
 * A zip of `count` empty entries named by `name(i)`, with the zip64 end records a count past 65,535
 * needs. Built in memory in a fraction of a second: for the entry-count bounds of an import.
 */
export function manyEntriesZip(
  count: number,
  name: (i: number) => string,
  extra: { first?: { name: string; data: string }; last?: { name: string; data: string } } = {},
): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  const add = (entryName: string, data: Buffer, crc: number) => {
    const n = Buffer.from(entryName, 'utf8');
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(n.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE((3 << 8) | 45, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(n.length, 28);
    central.writeUInt32LE((0o100644 << 16) >>> 0, 38);
    central.writeUInt32LE(offset, 42);
    locals.push(local, n, data);
    centrals.push(central, n);
    offset += 30 + n.length + data.length;
  };
  const empty = Buffer.alloc(0);
  let total = count;
  const addText = (entry: { name: string; data: string }) => {
    const data = Buffer.from(entry.data);
    add(entry.name, data, crc32(data));
    total++;
  };
  if (extra.first) addText(extra.first);
  for (let i = 0; i < count; i++) add(name(i), empty, 0);
  if (extra.last) addText(extra.last);
  const dir = Buffer.concat(centrals);
  const zip64End = Buffer.alloc(56);
  zip64End.writeUInt32LE(0x06064b50, 0);
  zip64End.writeBigUInt64LE(44n, 4);
  zip64End.writeUInt16LE(45, 12);
  zip64End.writeUInt16LE(45, 14);
  zip64End.writeBigUInt64LE(BigInt(total), 24);
  zip64End.writeBigUInt64LE(BigInt(total), 32);
  zip64End.writeBigUInt64LE(BigInt(dir.length), 40);
  zip64End.writeBigUInt64LE(BigInt(offset), 48);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(BigInt(offset + dir.length), 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([...locals, dir, zip64End, locator, end]);
}

function crc32(data: Buffer): number {
  let c = 0xffffffff;
  for (const byte of data) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}
