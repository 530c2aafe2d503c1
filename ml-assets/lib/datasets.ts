/**
 * Reads a dataset for set-up: each source file named by its definition is read from the data
 * folder and checked against the definition's sha256, then read by the shared rules of
 * worker/ml/dataset-source.ts. The three shipped datasets are definitions in
 * ml-assets/datasets/ like any other.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { DatasetDefinition } from '../../worker/schemas/dataset-definition';
import { DataSourceError, readDataset, type PreparedDataset } from '../../worker/ml/dataset-source';
import { definitionOf } from './definitions';
import { dataDir } from './paths';

export { DataSourceError };
export type { CellValue, Example, PreparedDataset } from '../../worker/ml/dataset-source';

/** A source file's bytes, after checking them against the definition's sha256. */
export function readVerified(file: DatasetDefinition['source']['files'][number], root = dataDir()): Buffer {
  const full = path.resolve(root, file.path);
  if (!existsSync(full)) {
    throw new DataSourceError(`Missing ${full}. Point XDL_DATA_DIR at the folder holding the datasets, or download the file as docs/your-own-task.md says ("Data").`);
  }
  const bytes = readFileSync(full);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== file.sha256) {
    throw new DataSourceError(`${file.path}: sha256 ${actual} does not match its definition (${file.sha256}); the file is not the original.`);
  }
  return bytes;
}

/** The examples of a dataset, by id (a definition in ml-assets/datasets/) or by definition. */
export function loadDataset(dataset: string | DatasetDefinition, options: { allRows?: boolean; root?: string } = {}): PreparedDataset {
  const definition = typeof dataset === 'string' ? definitionOf(dataset) : dataset;
  const root = options.root ?? dataDir();
  return readDataset(definition, definition.source.files.map((file) => readVerified(file, root)), { allRows: options.allRows ?? false });
}
