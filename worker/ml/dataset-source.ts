/**
 * Reading a dataset's source by its definition, with no I/O: bytes in, examples out. Set-up
 * (ml-assets/lib/datasets.ts) and the dashboard's preview of a new dataset both read through it,
 * so a dataset is read by the same rules wherever it is checked. Only the defined feature columns
 * and the outcome are kept: every other column (names, birth dates, case numbers) never leaves it.
 */
import Papa from 'papaparse';
import { isCategorical, sourceColumnOf, type DatasetColumn, type DatasetDefinition } from '../schemas/dataset-definition';

export type CellValue = string | number | null;

export type Example = {
  features: Record<string, CellValue>;
  label: 0 | 1;
  /** `file#i`: 0-based data row of its source file (after skipped lines and the header). */
  source: string;
};

export type PreparedDataset = {
  dataset: string;
  definition: DatasetDefinition;
  featureNames: string[];
  /** Features whose values are category labels (text, or integer codes the source defines). */
  categoricalFeatures: string[];
  /** Text categories → integer codes, sorted byte-wise over the whole dataset (as the fixtures do). */
  categoryCodes: Record<string, Record<string, number>>;
  examples: Example[];
};

/** A source that breaks its definition (or is missing): the message names the file, row and column. */
export class DataSourceError extends Error {
  override readonly name = 'DataSourceError';
}

function parseNumber(raw: string, where: () => string): number {
  const value = Number(raw.replace(/,/g, ''));
  if (!Number.isFinite(value)) throw new DataSourceError(`${where()}: "${raw}" is not a number`);
  return value;
}

/** One cell as the model and the case card read it; null when missing. */
function readCell(column: DatasetColumn, raw: string, missing: ReadonlySet<string>, where: () => string): CellValue {
  if (raw === '' || missing.has(raw)) return null;
  switch (column.kind) {
    case 'numeric': {
      const value = parseNumber(raw, where);
      if (column.integer && !Number.isInteger(value)) throw new DataSourceError(`${where()}: "${raw}" is not a whole number (the column is integer)`);
      return value;
    }
    case 'categorical': {
      if (!column.codes) return raw;
      const code = parseNumber(raw, where);
      if (!Number.isInteger(code) || code < column.codes.min || code > column.codes.max) {
        throw new DataSourceError(`${where()}: "${raw}" is not a code from ${column.codes.min} to ${column.codes.max}`);
      }
      return code;
    }
    case 'ordinal': {
      const level = column.levels.indexOf(raw);
      if (level < 0) throw new DataSourceError(`${where()}: "${raw}" is not one of the levels ${column.levels.join(', ')}`);
      return level;
    }
  }
}

function codesFor(examples: Example[], features: string[]): Record<string, Record<string, number>> {
  const codes: Record<string, Record<string, number>> = {};
  for (const feature of features) {
    const values = new Set<string>();
    for (const e of examples) {
      const v = e.features[feature];
      if (typeof v === 'string') values.add(v);
    }
    // Byte-wise order, as Python's sorted() on str gives for ASCII labels.
    const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    codes[feature] = Object.fromEntries(sorted.map((v, i) => [v, i]));
  }
  return codes;
}

/** A source file's text as its definition decodes it, after the lines it skips. */
export function decodeSource(definition: DatasetDefinition, file: DatasetDefinition['source']['files'][number], bytes: Uint8Array): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(definition.source.encoding);
  } catch {
    throw new DataSourceError(`${file.path}: this runtime cannot decode ${definition.source.encoding}; convert the file to UTF-8`);
  }
  let text = decoder.decode(bytes);
  for (let k = 0; k < file.skipLines; k++) text = text.slice(text.indexOf('\n') + 1);
  return text;
}

/** The file's header and records, as parsed with the definition's delimiter. */
export function parseSource(definition: DatasetDefinition, file: DatasetDefinition['source']['files'][number], text: string): { header: string[]; rows: string[][] } {
  const parsed = Papa.parse<string[]>(text, { delimiter: definition.source.delimiter, skipEmptyLines: 'greedy' });
  if (parsed.errors.length > 0) throw new DataSourceError(`${file.path}: ${parsed.errors[0]!.message} (row ${parsed.errors[0]!.row})`);
  const rows = parsed.data;
  const header = definition.source.header ?? rows.shift()?.map((h) => h.trim()) ?? [];
  return { header, rows };
}

/**
 * The examples of a dataset from its source files' bytes (in the definition's order; their sha256
 * is the caller's to check). `allRows` keeps rows with missing features even where the definition
 * drops them (the LightGBM reference of speed dating was trained so).
 */
export function readDataset(definition: DatasetDefinition, sources: readonly Uint8Array[], options: { allRows?: boolean } = {}): PreparedDataset {
  const parsed = definition.source.files.map((file, f) => parseSource(definition, file, decodeSource(definition, file, sources[f]!)));
  return readParsedDataset(definition, parsed, options);
}

/** `readDataset` from files already parsed (in the definition's order), for a caller that reads their cells too. */
export function readParsedDataset(definition: DatasetDefinition, parsed: readonly { header: string[]; rows: string[][] }[], options: { allRows?: boolean } = {}): PreparedDataset {
  const { columns, outcome } = definition;
  const missing = new Set(definition.missing.markers);
  const drop = definition.missing.rows === 'drop' && !options.allRows;
  const examples: Example[] = [];

  definition.source.files.forEach((file, f) => {
    const name = file.path.split('/').at(-1)!;
    const { header, rows } = parsed[f]!;
    // The first column of a name is read (COMPAS repeats priors_count and decile_score).
    const indexOf = (column: string) => {
      const index = header.indexOf(column);
      if (index < 0) throw new DataSourceError(`${file.path}: no column "${column}" (its columns: ${header.slice(0, 12).join(', ')}${header.length > 12 ? ', …' : ''})`);
      return index;
    };
    const featureIndex = columns.map((c) => indexOf(sourceColumnOf(c)));
    const outcomeIndex = indexOf(outcome.column);

    rows.forEach((cells, i) => {
      if (cells.length !== header.length) throw new DataSourceError(`${file.path} row ${i + 1}: expected ${header.length} fields, got ${cells.length}`);
      const rawOutcome = cells[outcomeIndex]!.trim();
      const label = outcome.positive.includes(rawOutcome) ? 1 : outcome.negative.includes(rawOutcome) ? 0 : null;
      if (label === null) {
        throw new DataSourceError(`${file.path} row ${i + 1}, outcome ${outcome.column}: "${rawOutcome}" is neither positive (${outcome.positive.join(', ')}) nor negative (${outcome.negative.join(', ')})`);
      }
      const features: Record<string, CellValue> = {};
      let complete = true;
      columns.forEach((column, j) => {
        const value = readCell(column, cells[featureIndex[j]!]!.trim(), missing, () => `${file.path} row ${i + 1}, column ${column.name}`);
        if (value === null) complete = false;
        features[column.name] = value;
      });
      if (drop && !complete) return;
      examples.push({ features, label, source: `${name}#${i}` });
    });
  });

  const { expectedRows } = definition.source;
  if (expectedRows !== undefined && !options.allRows && examples.length !== expectedRows) {
    throw new DataSourceError(`${definition.id}: expected ${expectedRows.toLocaleString('en')} rows, found ${examples.length.toLocaleString('en')}`);
  }
  const textCategories = columns.filter((c) => c.kind === 'categorical' && !c.codes).map((c) => c.name);
  return {
    dataset: definition.id,
    definition,
    featureNames: columns.map((c) => c.name),
    categoricalFeatures: columns.filter(isCategorical).map((c) => c.name),
    // Integer-coded categories serve as their own codes.
    categoryCodes: codesFor(examples, textCategories),
    examples,
  };
}
