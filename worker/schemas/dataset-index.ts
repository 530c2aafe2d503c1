/**
 * Which datasets the platform has, in the study's order, with their names: all the participant's
 * first page needs of them (`datasets.index.json`, written by set-up beside the full
 * `datasets.participant.json`). The definitions' columns, values and samples are in
 * worker/schemas/datasets.ts, which screens that show cases load. Zod-free, as the SPA reads it.
 */
import index from '../../ml-assets/generated/datasets.index.json';
import type { DefinedDataset, IndexedDataset } from './dataset-definition';
import type { Language } from './study-terms';

const builtWith = (index as unknown as { datasets: IndexedDataset[] }).datasets;

/** The datasets the platform was built with (the others were added on the dashboard). */
export const BUILT_IN_DATASET_IDS: readonly string[] = builtWith.map((d) => d.id);

const indexed = new Map<string, IndexedDataset>(builtWith.map((d) => [d.id, d]));
/** Added datasets' definitions, in the order they were registered. */
const added: DefinedDataset[] = [];
const listeners: ((fresh: readonly DefinedDataset[]) => void)[] = [];

/**
 * Every dataset's id, in the study's order (`order`, then id): the ones the platform was built
 * with, then, once registered, the ones administrators added on the dashboard (kept in D1).
 */
export const DATASET_IDS: readonly string[] = [...BUILT_IN_DATASET_IDS];

/** A dataset's id: one of DATASET_IDS (ids are checked where they come in, with `isDatasetType`). */
export type DatasetType = string;
export const isDatasetType = (value: unknown): value is DatasetType => typeof value === 'string' && DATASET_IDS.includes(value);

/**
 * Adds datasets defined at run time (an administrator's, from the dashboard) beside the built-in
 * ones; a known id is left as it is (a dataset never changes once sessions may use it). Returns
 * the ones that were new, after telling every `onDatasetsRegistered` listener.
 */
export function registerDatasets(datasets: readonly DefinedDataset[]): DefinedDataset[] {
  const fresh = datasets.filter((d) => !indexed.has(d.id));
  if (fresh.length === 0) return fresh;
  const ids = DATASET_IDS as string[];
  for (const d of fresh) {
    indexed.set(d.id, d);
    added.push(d);
    ids.push(d.id);
  }
  ids.sort((a, b) => indexed.get(a)!.order - indexed.get(b)!.order || (a < b ? -1 : a > b ? 1 : 0));
  for (const listener of listeners) listener(fresh);
  return fresh;
}

/** Calls `listener` with the added datasets registered so far, then with each later registration. */
export function onDatasetsRegistered(listener: (fresh: readonly DefinedDataset[]) => void): void {
  listeners.push(listener);
  if (added.length > 0) listener([...added]);
}

/** Added datasets an administrator has enabled for new sessions (the built-in ones are enabled by the study configuration). */
const enabledAdded = new Set<string>();

/** Sets which added datasets new sessions may get, as the dashboard last left them. */
export function setEnabledAdded(ids: Iterable<string>): void {
  enabledAdded.clear();
  for (const id of ids) enabledAdded.add(id);
}

export const isEnabledAdded = (id: string) => enabledAdded.has(id);

/** Datasets' names in one language, under the SPA's `datasets.{id}.name` keys; of every dataset unless `of` names some. */
export function datasetIndexTranslations(language: Language, of: readonly IndexedDataset[] = [...indexed.values()]) {
  return { datasets: Object.fromEntries(of.map(({ id, texts }) => [id, { name: texts[language].name }])) };
}
