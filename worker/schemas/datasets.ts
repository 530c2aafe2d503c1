/**
 * The platform's datasets as participants' screens show them, from their definitions
 * (ml-assets/datasets/*.json, gathered by set-up into ml-assets/generated/): each one's columns
 * with their words and formats, its texts, colours, table and understanding-test sample. Adding a
 * definition file adds a dataset, with no code. Zod-free, so the SPA reads it; the Worker reads
 * the whole definitions and validates them when it starts (study.ts).
 */
import registry from '../../ml-assets/generated/datasets.participant.json';
import type { DatasetColumn, DatasetDefinition } from './dataset-definition';
import type { Language } from './study-config';

/** A column as participants' screens read it: its words, format and values, without its codebook meaning or source. */
export type ShownColumn = DatasetColumn extends infer C ? (C extends unknown ? Omit<C, 'meaning' | 'source' | 'unit' | 'integer'> : never) : never;

/** What participants' screens need of a definition (validated by set-up, every default filled in). */
export type DefinedDataset = Pick<DatasetDefinition, 'id' | 'order' | 'texts' | 'colours' | 'matrix' | 'understandingSample'> & { columns: ShownColumn[] };

const defined = (registry as unknown as { datasets: DefinedDataset[] }).datasets;

/** Every dataset's id, in the study's order. */
export const DATASET_IDS: readonly string[] = defined.map((d) => d.id);

export const DATASETS: Readonly<Record<string, DefinedDataset>> = Object.fromEntries(defined.map((d) => [d.id, d]));

/** A dataset's definition; throws for an id no definition has (callers validate ids first). */
export function datasetOf(id: string): DefinedDataset {
  const dataset = DATASETS[id];
  if (!dataset) throw new Error(`no dataset ${id}`);
  return dataset;
}

/**
 * A dataset's participant-facing texts in one language, as the SPA's translation keys hold them:
 * `datasets.{id}`, `main.labels.{id}`, `fields.{id}.{column}`, `values.{id}.{column}.{value}` and
 * `caseCard.matrix.{id}`.
 */
export function datasetTranslations(language: Language) {
  const datasets: Record<string, object> = {};
  const labels: Record<string, object> = {};
  const fields: Record<string, Record<string, { label: string; description: string }>> = {};
  const values: Record<string, Record<string, Record<string, string>>> = {};
  const matrix: Record<string, object> = {};
  for (const [id, definition] of Object.entries(DATASETS)) {
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
