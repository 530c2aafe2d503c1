/**
 * The generated dataset registry: every definition of ml-assets/datasets/, each with its
 * understanding sample (its own or derived from its data), written into the three files the Worker
 * and the SPA import. Above both the definitions (./definitions.ts) and the data (./datasets.ts),
 * as it reads each.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DatasetDefinitionError, indexEntry, shownDefinition, type DatasetDefinition } from '../../worker/schemas/dataset-definition';
import { deriveUnderstandingSample, SampleNotDerivable } from '../../worker/ml/understanding-sample';
import { loadDataset } from './datasets';
import { allDefinitions } from './definitions';
import { projectRoot } from './paths';

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
