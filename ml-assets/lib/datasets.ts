/**
 * Reads a dataset from its definition (worker/schemas/dataset-definition.ts): each source file is
 * checked against the definition's sha256, decoded, parsed, and only the defined feature columns
 * and the outcome are kept. Every other column (names, birth dates, case numbers) never leaves
 * the parser. The three shipped datasets are definitions in ml-assets/datasets/ like any other.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { isCategorical, sourceColumnOf, type DatasetColumn, type DatasetDefinition } from '../../worker/schemas/dataset-definition';
import { definitionOf } from './definitions';
import { dataDir } from './paths';

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

export class DataSourceError extends Error {
  override readonly name = 'DataSourceError';
}

/** A source file's bytes, after checking them against the definition's sha256. */
export function readVerified(file: DatasetDefinition['source']['files'][number], root = dataDir()): Buffer {
  const full = path.resolve(root, file.path);
  if (!existsSync(full)) {
    throw new DataSourceError(`Missing ${full}. Point XDL_DATA_DIR at the folder holding the datasets, or download the file as the README's "Data" section says.`);
  }
  const bytes = readFileSync(full);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== file.sha256) {
    throw new DataSourceError(`${file.path}: sha256 ${actual} does not match its definition (${file.sha256}); the file is not the original.`);
  }
  return bytes;
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

function parseRows(text: string, delimiter: string, file: string): string[][] {
  const parsed = Papa.parse<string[]>(text, { delimiter, skipEmptyLines: 'greedy' });
  if (parsed.errors.length > 0) throw new DataSourceError(`${file}: ${parsed.errors[0]!.message} (row ${parsed.errors[0]!.row})`);
  return parsed.data;
}

/**
 * The examples of a dataset. `allRows` keeps rows with missing features even where the definition
 * drops them (the LightGBM reference of speed dating was trained so).
 */
export function loadDataset(dataset: string | DatasetDefinition, options: { allRows?: boolean; root?: string } = {}): PreparedDataset {
  const definition = typeof dataset === 'string' ? definitionOf(dataset) : dataset;
  const root = options.root ?? dataDir();
  const { source, columns, outcome } = definition;
  const missing = new Set(definition.missing.markers);
  const drop = definition.missing.rows === 'drop' && !options.allRows;
  const decoder = new TextDecoder(source.encoding);
  const examples: Example[] = [];

  for (const file of source.files) {
    const name = path.basename(file.path);
    let text = decoder.decode(readVerified(file, root));
    for (let k = 0; k < file.skipLines; k++) text = text.slice(text.indexOf('\n') + 1);
    const rows = parseRows(text, source.delimiter, file.path);
    const header = source.header ?? rows.shift()?.map((h) => h.trim()) ?? [];
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
  }

  if (source.expectedRows !== undefined && !options.allRows && examples.length !== source.expectedRows) {
    throw new DataSourceError(`${definition.id}: expected ${source.expectedRows.toLocaleString('en')} rows, found ${examples.length.toLocaleString('en')}`);
  }
  const categoricalFeatures = columns.filter(isCategorical).map((c) => c.name);
  const textCategories = columns.filter((c) => c.kind === 'categorical' && !c.codes).map((c) => c.name);
  return {
    dataset: definition.id,
    definition,
    featureNames: columns.map((c) => c.name),
    categoricalFeatures,
    // Integer-coded categories serve as their own codes.
    categoryCodes: codesFor(examples, textCategories),
    examples,
  };
}
