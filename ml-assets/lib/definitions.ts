/**
 * The dataset definitions set-up builds: every `*.json` in ml-assets/datasets/ (the three shipped
 * datasets and any a researcher adds beside them). Each is validated when read; an invalid one
 * stops set-up with the file, the column and the rule.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { DatasetDefinitionError, parseDatasetDefinition, type DatasetDefinition } from '../../worker/schemas/dataset-definition';
import { projectRoot } from './paths';
import { poolsShortOfTheStudy } from '../../worker/schemas/study-counts';

/** Where definitions are read from; XDL_DATASETS_DIR points elsewhere (tests, a study's own folder). */
export const definitionsDir = () => path.resolve(process.env.XDL_DATASETS_DIR ?? path.join(projectRoot, 'ml-assets', 'datasets'));

export function readDefinitionFile(file: string): DatasetDefinition {
  const text = readFileSync(file, 'utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new DatasetDefinitionError(`${file} is not valid JSON: ${(err as Error).message}`);
  }
  const definition = parseDatasetDefinition(json, file);
  const expected = path.basename(file, '.json');
  if (definition.id !== expected) throw new DatasetDefinitionError(`${file}: id "${definition.id}" differs from the file's name (${expected}.json)`);
  // Pools smaller than a phase would strand every participant who gets the dataset.
  const short = poolsShortOfTheStudy(definition.pools);
  if (short.length > 0) throw new DatasetDefinitionError(`${file}: ${short.join('; ')}`);
  return definition;
}

/** Every definition of the folder, in the study's order (`order`, then id). */
export function allDefinitions(dir = definitionsDir()): DatasetDefinition[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.json'))
    .map((name) => readDefinitionFile(path.join(dir, name)))
    .sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

export function definitionOf(id: string, dir = definitionsDir()): DatasetDefinition {
  const file = path.join(dir, `${id}.json`);
  try {
    return readDefinitionFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new DatasetDefinitionError(`no dataset definition ${file}`);
    throw err;
  }
}
