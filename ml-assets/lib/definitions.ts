/**
 * The dataset definitions set-up builds: every `*.json` in ml-assets/datasets/ (the three shipped
 * datasets and any a researcher adds beside them). Each is validated when read; an invalid one
 * stops set-up with the file, the column and the rule.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatasetDefinitionError, indexEntry, parseDatasetDefinition, shownDefinition, type DatasetDefinition } from '../../worker/schemas/dataset-definition';
import { projectRoot } from './paths';
import { poolsShortOfTheStudy } from '../../worker/schemas/study-counts';
import { deriveUnderstandingSample, SampleNotDerivable } from '../../worker/ml/understanding-sample';
import { loadDataset } from './datasets';

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

/**
 * The platform's datasets for the Worker and the SPA to build with: every definition, validated,
 * in generated files they import. Set-up, `npm start`, `npm test`, `npm run deploy` and
 * `npm install` write them, so a definition added to the folder needs no code. The Worker reads
 * `datasets.json` whole (worker/schemas/study.ts); participants' pages read
 * `datasets.participant.json` (worker/schemas/datasets.ts): what a screen shows, without the
 * sources, codebook meanings and set-up rules; the participant's first page reads only
 * `datasets.index.json` (worker/schemas/dataset-index.ts): ids, order and texts.
 */
export const registryPath = () => path.join(projectRoot, 'ml-assets', 'generated', 'datasets.json');
const participantRegistryPath = () => path.join(projectRoot, 'ml-assets', 'generated', 'datasets.participant.json');
const indexPath = () => path.join(projectRoot, 'ml-assets', 'generated', 'datasets.index.json');

/** Writes `file` only when its content changes, so watchers (wrangler dev, vite) do not rebuild for nothing. */
function writeIfChanged(file: string, value: unknown): void {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  mkdirSync(path.dirname(file), { recursive: true });
  if (!existsSync(file) || readFileSync(file, 'utf8') !== text) writeFileSync(file, text);
}

/**
 * A definition with its understanding sample: its own, or derived from its data (read and verified
 * from the data folder) as the dashboard derives it.
 */
export function withUnderstandingSample(definition: DatasetDefinition): DatasetDefinition {
  if (definition.understandingSample) return definition;
  let data;
  try {
    data = loadDataset(definition);
  } catch (err) {
    throw new DatasetDefinitionError(
      `${definition.id}: the definition gives no understandingSample, so it is derived from the data, which could not be read (${(err as Error).message}). Place the CSV in the data folder or give understandingSample.`,
    );
  }
  try {
    return { ...definition, understandingSample: deriveUnderstandingSample(data) };
  } catch (err) {
    if (err instanceof SampleNotDerivable) throw new DatasetDefinitionError(`${definition.id}: ${err.message}`);
    throw err;
  }
}

export function writeDatasetRegistry(definitions = allDefinitions()): DatasetDefinition[] {
  const complete = definitions.map(withUnderstandingSample);
  writeIfChanged(registryPath(), { datasets: complete });
  writeIfChanged(participantRegistryPath(), { datasets: complete.map(shownDefinition) });
  writeIfChanged(indexPath(), { datasets: complete.map(indexEntry) });
  return complete;
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
