/**
 * The records around a zip's entries (PKWARE APPNOTE 4.3): a local header before each entry's
 * deflated bytes, a data descriptor after them, and the central directory at the end. A stepwise
 * export writes an entry over several Worker invocations, deflating each piece with the runtime's
 * zlib (node:zlib) and ending it on a sync flush, so pieces from different invocations make one
 * deflate stream. A zip library keeps its archive's state in memory and cannot pause between
 * invocations, so the few fixed-layout records are written here. Every number they hold
 * (checksum, sizes, offsets) travels between steps in the export job's cursor.
 */

/** What the central directory says of one written entry. */
export type ZipEntryRecord = { name: string; crc: number; size: number; compressedSize: number; offset: number };

/** The classic (not ZIP64) records hold sizes and offsets in 32 bits. */
export const ZIP_LIMIT_BYTES = 0xffffffff;

/** General purpose flags: bit 3, sizes and checksum follow the data; bit 11, names are UTF-8. */
const FLAGS = 0x0808;
const DEFLATE = 8;
const VERSION = 20;

/** MS-DOS date and time of `when` (UTC), as zip records hold them. */
function dosTime(when: Date) {
  const time = (when.getUTCHours() << 11) | (when.getUTCMinutes() << 5) | (when.getUTCSeconds() >> 1);
  const date = ((Math.max(when.getUTCFullYear(), 1980) - 1980) << 9) | ((when.getUTCMonth() + 1) << 5) | when.getUTCDate();
  return { time, date };
}

const encoder = new TextEncoder();

/** The local header of an entry whose checksum and sizes come in its data descriptor. */
export function localHeader(name: string, when: Date): Uint8Array {
  const nameBytes = encoder.encode(name);
  const out = new Uint8Array(30 + nameBytes.length);
  const v = new DataView(out.buffer);
  const { time, date } = dosTime(when);
  v.setUint32(0, 0x04034b50, true);
  v.setUint16(4, VERSION, true);
  v.setUint16(6, FLAGS, true);
  v.setUint16(8, DEFLATE, true);
  v.setUint16(10, time, true);
  v.setUint16(12, date, true);
  // Checksum and sizes (14–25) stay zero: the data descriptor carries them.
  v.setUint16(26, nameBytes.length, true);
  out.set(nameBytes, 30);
  return out;
}

export function dataDescriptor(entry: ZipEntryRecord): Uint8Array {
  checkLimits(entry);
  const out = new Uint8Array(16);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x08074b50, true);
  v.setUint32(4, entry.crc, true);
  v.setUint32(8, entry.compressedSize, true);
  v.setUint32(12, entry.size, true);
  return out;
}

/** The central directory of `entries`, which starts at byte `offset` of the file, and its end record. */
export function centralDirectory(entries: ZipEntryRecord[], offset: number, when: Date): Uint8Array {
  const { time, date } = dosTime(when);
  const names = entries.map((e) => encoder.encode(e.name));
  const size = names.reduce((sum, n) => sum + 46 + n.length, 0);
  if (offset + size > ZIP_LIMIT_BYTES || entries.length > 0xffff) throw new Error('The export is past what a classic zip holds (4 GiB, 65,535 files)');
  const out = new Uint8Array(size + 22);
  const v = new DataView(out.buffer);
  let at = 0;
  entries.forEach((e, i) => {
    checkLimits(e);
    const name = names[i]!;
    v.setUint32(at, 0x02014b50, true);
    v.setUint16(at + 4, VERSION, true);
    v.setUint16(at + 6, VERSION, true);
    v.setUint16(at + 8, FLAGS, true);
    v.setUint16(at + 10, DEFLATE, true);
    v.setUint16(at + 12, time, true);
    v.setUint16(at + 14, date, true);
    v.setUint32(at + 16, e.crc, true);
    v.setUint32(at + 20, e.compressedSize, true);
    v.setUint32(at + 24, e.size, true);
    v.setUint16(at + 28, name.length, true);
    // Extra field, comment, disk number, internal and external attributes (30–41) stay zero.
    v.setUint32(at + 42, e.offset, true);
    out.set(name, at + 46);
    at += 46 + name.length;
  });
  v.setUint32(at, 0x06054b50, true);
  v.setUint16(at + 8, entries.length, true);
  v.setUint16(at + 10, entries.length, true);
  v.setUint32(at + 12, size, true);
  v.setUint32(at + 16, offset, true);
  return out;
}

function checkLimits(e: ZipEntryRecord) {
  if (e.size > ZIP_LIMIT_BYTES || e.compressedSize > ZIP_LIMIT_BYTES || e.offset > ZIP_LIMIT_BYTES) {
    throw new Error(`${e.name} is past what a classic zip holds (4 GiB)`);
  }
}
