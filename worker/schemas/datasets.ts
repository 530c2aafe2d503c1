/**
 * The platform's datasets as participants' screens show them, from their definitions
 * (ml-assets/datasets/*.json, gathered by set-up into ml-assets/generated/): each one's columns
 * with their words and formats, its texts, colours, table and understanding-test sample. Adding a
 * definition file adds a dataset, with no code; so does an administrator's dataset added on the
 * dashboard, registered at run time. Zod-free, so the SPA reads it; the Worker reads the whole
 * definitions and validates them when it starts (study.ts).
 */
import registry from '../../ml-assets/generated/datasets.participant.json';
import type { DefinedDataset } from './dataset-definition';
import type { Language } from './study-config';

export type { DefinedDataset, ShownColumn } from './dataset-definition';

const builtWith = (registry as unknown as { datasets: DefinedDataset[] }).datasets;

/** The datasets the platform was built with (the others were added on the dashboard). */
export const BUILT_IN_DATASET_IDS: readonly string[] = builtWith.map((d) => d.id);

/**
 * Every dataset's id, in the study's order (`order`, then id): the ones the platform was built
 * with, then, once registered, the ones administrators added on the dashboard (kept in D1).
 */
export const DATASET_IDS: readonly string[] = [...BUILT_IN_DATASET_IDS];

export const DATASETS: Readonly<Record<string, DefinedDataset>> = Object.fromEntries(builtWith.map((d) => [d.id, d]));

/**
 * Adds datasets defined at run time (an administrator's, from the dashboard) beside the built-in
 * ones; a known id is left as it is (a dataset never changes once sessions may use it). Returns
 * the ones that were new.
 */
export function registerDatasets(datasets: readonly DefinedDataset[]): DefinedDataset[] {
  const fresh = datasets.filter((d) => !DATASETS[d.id]);
  if (fresh.length === 0) return fresh;
  const ids = DATASET_IDS as string[];
  for (const d of fresh) {
    (DATASETS as Record<string, DefinedDataset>)[d.id] = d;
    ids.push(d.id);
  }
  ids.sort((a, b) => DATASETS[a]!.order - DATASETS[b]!.order || (a < b ? -1 : a > b ? 1 : 0));
  return fresh;
}

/** Added datasets an administrator has enabled for new sessions (the built-in ones are enabled by the study configuration). */
const enabledAdded = new Set<string>();

/** Sets which added datasets new sessions may get, as the dashboard last left them. */
export function setEnabledAdded(ids: Iterable<string>): void {
  enabledAdded.clear();
  for (const id of ids) enabledAdded.add(id);
}

export const isEnabledAdded = (id: string) => enabledAdded.has(id);

/** A dataset's definition; throws for an id no definition has (callers validate ids first). */
export function datasetOf(id: string): DefinedDataset {
  const dataset = DATASETS[id];
  if (!dataset) throw new Error(`no dataset ${id}`);
  return dataset;
}

/**
 * A dataset's participant-facing texts in one language, as the SPA's translation keys hold them:
 * `datasets.{id}`, `main.labels.{id}`, `fields.{id}.{column}`, `values.{id}.{column}.{value}` and
 * `caseCard.matrix.{id}`; of every dataset unless `of` names some.
 */
export function datasetTranslations(language: Language, of: readonly DefinedDataset[] = Object.values(DATASETS)) {
  const datasets: Record<string, object> = {};
  const labels: Record<string, object> = {};
  const fields: Record<string, Record<string, { label: string; description: string }>> = {};
  const values: Record<string, Record<string, Record<string, string>>> = {};
  const matrix: Record<string, object> = {};
  for (const definition of of) {
    const { id } = definition;
    const { name, task, summary, positive, negative, aiPositive, aiNegative } = definition.texts[language];
    datasets[id] = { name, task, summary, positive, negative };
    labels[id] = { positive: aiPositive, negative: aiNegative };
    fields[id] = Object.fromEntries(definition.columns.map((c) => [c.name, { label: c.label[language], description: c.description[language] }]));
    values[id] = Object.fromEntries(
      definition.columns.flatMap((c) => (c.values ? [[c.name, Object.fromEntries(Object.entries(c.values).map(([code, text]) => [code, text[language]]))]] : [])),
    );
    if (definition.matrix) {
      const m = definition.matrix;
      matrix[id] = {
        caption: m.caption[language],
        rowHeader: m.rowHeader[language],
        columns: Object.fromEntries(m.columns.map((c) => [c.id, c.label[language]])),
        rows: Object.fromEntries(m.rows.map((r) => [r.id, r.label[language]])),
      };
    }
  }
  return { datasets, main: { labels }, fields, values, caseCard: { matrix } };
}
