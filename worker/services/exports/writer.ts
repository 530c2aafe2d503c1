/**
 * Writes exports into R2 as they are read from D1, page by page: CSV/TSV text by papaparse (its
 * quoting, plus formula escaping), and bytes into an R2 multipart upload in fixed-size parts (zips
 * are written in steps by ./stepwise.ts). At any moment the Worker holds one D1 page and at most one part, whatever the
 * table's size; the response then streams the stored copy back from R2.
 */
import Papa from 'papaparse';
import type { Db } from '../../db/client';
import type { ExportFilter, ExportTable } from './columns';

/**
 * `excel`: the CSV with a UTF-8 byte-order mark, which Excel needs to read the file as UTF-8 when
 * it is opened by a double click (Japanese text and every non-ASCII character would be garbled).
 */
export type TextFormat = 'csv' | 'tsv' | 'excel';
/** The file name extension of each text format. */
export const TEXT_EXTENSIONS: Record<TextFormat, string> = { csv: 'csv', tsv: 'tsv', excel: 'csv' };
const BYTE_ORDER_MARK = '\uFEFF';

/** R2 wants every part but the last of one size, at least 5 MiB. */
const PART_BYTES = 5 * 1024 * 1024;

/** Where a multipart upload stands between Worker invocations (a stepwise export's cursor holds it). */
export type UploadState = { uploadId: string | null; parts: R2UploadedPart[] };

/**
 * Buffers bytes into equal parts and uploads each as it fills; small files become one plain put.
 * Given an `UploadState`, it goes on with that upload; `pause` hands back the bytes short of a part.
 */
export class R2ExportSink {
  private chunks: Uint8Array[] = [];
  private buffered = 0;
  private upload: R2MultipartUpload | null = null;
  private parts: R2UploadedPart[] = [];
  private written = 0;

  constructor(
    private readonly bucket: R2Bucket,
    private readonly key: string,
    private readonly contentType: string,
    resume?: UploadState,
  ) {
    if (resume?.uploadId) this.upload = bucket.resumeMultipartUpload(key, resume.uploadId);
    if (resume) this.parts = [...resume.parts];
  }

  write(chunk: Uint8Array) {
    if (chunk.length === 0) return;
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.written += chunk.length;
  }

  /** Uploads every full part buffered so far. */
  async flush() {
    while (this.buffered >= PART_BYTES) {
      this.upload ??= await this.bucket.createMultipartUpload(this.key, { httpMetadata: { contentType: this.contentType } });
      const part = this.take(PART_BYTES);
      this.parts.push(await this.upload.uploadPart(this.parts.length + 1, part));
    }
  }

  /** Uploads every full part and returns the rest (less than a part) with the upload's state. */
  async pause(): Promise<{ rest: Uint8Array; state: UploadState }> {
    await this.flush();
    return { rest: this.take(this.buffered), state: { uploadId: this.upload?.uploadId ?? null, parts: [...this.parts] } };
  }

  async close(): Promise<number> {
    await this.flush();
    const rest = this.take(this.buffered);
    if (!this.upload) {
      await this.bucket.put(this.key, rest, { httpMetadata: { contentType: this.contentType } });
    } else {
      if (rest.length > 0) this.parts.push(await this.upload.uploadPart(this.parts.length + 1, rest));
      await this.upload.complete(this.parts);
    }
    return this.written;
  }

  async abort() {
    await this.upload?.abort().catch(() => undefined);
  }

  private take(bytes: number): Uint8Array {
    const out = new Uint8Array(bytes);
    let filled = 0;
    while (filled < bytes) {
      const head = this.chunks[0]!;
      const n = Math.min(head.length, bytes - filled);
      out.set(head.subarray(0, n), filled);
      filled += n;
      if (n === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(n);
    }
    this.buffered -= bytes;
    return out;
  }
}

const cell = (value: unknown): string | number | null => {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
};

/**
 * Text cells that a spreadsheet would read as a formula: starting with = + - @, a tab or a carriage
 * return. papaparse's own pattern for `escapeFormulae: true` must match the whole cell on one line,
 * so a formula followed by a line break would pass unescaped; this one looks at the start only.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * Text of one page of rows (`null`: the header line). Cells matching FORMULA_START get a leading
 * apostrophe, so a participant's free text never runs as a spreadsheet formula.
 */
export function pageText<R>(table: ExportTable<R>, rows: R[] | null, format: TextFormat): string {
  const unparse = (data: (string | number | null)[][]) =>
    Papa.unparse(data, { delimiter: format === 'tsv' ? '\t' : ',', newline: '\r\n', escapeFormulae: FORMULA_START });
  if (rows === null) return `${format === 'excel' ? BYTE_ORDER_MARK : ''}${unparse([table.columns.map((c) => c.name)])}\r\n`;
  return rows.length === 0 ? '' : `${unparse(rows.map((row) => table.columns.map((c) => cell(c.value(row)))))}\r\n`;
}

/** Adds to `holds` the participant IDs of the rows (the user_name column every table of participants' rows has). */
export function addHolds<R>(table: ExportTable<R>, rows: R[], holds: Set<string>) {
  const userName = table.columns.find((c) => c.name === 'user_name');
  if (!userName) return;
  for (const row of rows) {
    const code = userName.value(row);
    if (typeof code === 'string') holds.add(code);
  }
}

/** Yields the table as text, header first, one D1 page at a time; `holds` gathers the participant IDs written. */
export async function* tableText<R>(db: Db, table: ExportTable<R>, filter: ExportFilter, format: TextFormat, holds?: Set<string>): AsyncGenerator<string> {
  yield pageText(table, null, format);
  for await (const rows of table.pages(db, filter)) {
    if (holds) addHolds(table, rows, holds);
    yield pageText(table, rows, format);
  }
}

const encoder = new TextEncoder();

export async function writeTextExport<R>(sink: R2ExportSink, db: Db, table: ExportTable<R>, filter: ExportFilter, format: TextFormat, holds?: Set<string>) {
  try {
    for await (const text of tableText(db, table, filter, format, holds)) {
      sink.write(encoder.encode(text));
      await sink.flush();
    }
    return await sink.close();
  } catch (err) {
    await sink.abort();
    throw err;
  }
}
