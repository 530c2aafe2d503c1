/**
 * The platform's datasets as participants' screens show them, from their definitions
 * (ml-assets/datasets/*.json, gathered by set-up into ml-assets/generated/): each one's columns
 * with their words and formats, its texts, colours, table and understanding-test sample. Adding a
 * definition file adds a dataset, with no code; so does an administrator's dataset added on the
 * dashboard, registered at run time (worker/schemas/dataset-index.ts keeps the ids, names and
 * registrations). Zod-free, so the SPA reads it, in the chunks of the screens that show cases; the
 * Worker reads the whole definitions and validates them when it starts (study.ts).
 */
import registry from '../../ml-assets/generated/datasets.participant.json';
import type { DefinedDataset } from './dataset-definition';
import { onDatasetsRegistered } from './dataset-index';
import type { Language } from './study-terms';

export type { DefinedDataset, ShownColumn } from './dataset-definition';

export { BUILT_IN_DATASET_IDS, DATASET_IDS, isEnabledAdded, registerDatasets, setEnabledAdded } from './dataset-index';

const builtWith = (registry as unknown as { datasets: DefinedDataset[] }).datasets;

/** Every dataset's definition by id: the built-in ones, and each added one once registered. */
export const DATASETS: Readonly<Record<string, DefinedDataset>> = Object.fromEntries(builtWith.map((d) => [d.id, d]));
onDatasetsRegistered((fresh) => {
  for (const d of fresh) (DATASETS as Record<string, DefinedDataset>)[d.id] = d;
});

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
