/**
 * The study's datasets as their definitions (ml-assets/datasets/*.json): the one place their
 * columns, codebook meanings, formats, texts and colours are written. Zod-free, so the SPA reads
 * them too; the Worker validates them against `datasetDefinitionSchema` when it starts (study.ts).
 */
import adultIncome from '../../ml-assets/datasets/adult_income.json';
import compas from '../../ml-assets/datasets/compas.json';
import speedDating from '../../ml-assets/datasets/speed_dating.json';
import type { DatasetColumn, DatasetDefinition } from './dataset-definition';
import type { DatasetType, Language } from './study-config';

/** A definition as its file holds it: the schema's defaults are not filled in, so readers take only what files always state. */
export type ShippedDefinition = Pick<DatasetDefinition, 'id' | 'texts' | 'colours' | 'matrix' | 'outcome'> & { columns: DatasetColumn[] };

export const SHIPPED_DATASETS = {
  adult_income: adultIncome,
  speed_dating: speedDating,
  compas,
} as unknown as Record<DatasetType, ShippedDefinition>;

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
  for (const [id, definition] of Object.entries(SHIPPED_DATASETS)) {
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
