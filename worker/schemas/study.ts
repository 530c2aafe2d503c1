/**
 * The study as the Worker runs it: the configuration (`study-config.ts`) validated by its schema
 * (`study-schema.ts`) when the Worker starts (importing this module), so an inconsistent edit never
 * serves a request, and the datasets' definitions validated the same way. The SPA imports the
 * zod-free `study-config.ts` instead.
 */
import { DatasetDefinitionError, parseDatasetDefinition, type DatasetDefinition } from './dataset-definition';
import registry from '../../ml-assets/generated/datasets.json';
import { BUILT_IN_DATASET_IDS } from './datasets';
import { studyConfig as configuredStudy } from './study-config';
import { studyConfigSchema, type StudyConfig } from './study-schema';

export * from './study-config';
export * from './study-schema';

/** The configuration as validated at start-up. */
export const studyConfig: StudyConfig = studyConfigSchema.parse(configuredStudy);

/**
 * The datasets' definitions, validated at start-up as set-up validates them: the Worker never
 * serves a study whose dataset texts, columns or colours break the definition's rules. Datasets
 * administrators add on the dashboard join them when the Worker reads them from D1
 * (services/dataset-registry.ts).
 */
export const datasetDefinitions: Record<string, DatasetDefinition> = Object.fromEntries(
  // The built-in ones only: a page that loads this module late may have registered added ones already.
  BUILT_IN_DATASET_IDS.map((id) => {
    const definition = parseDatasetDefinition(registry.datasets.find((d) => d.id === id), `ml-assets/datasets/${id}.json`);
    if (definition.id !== id) throw new DatasetDefinitionError(`ml-assets/datasets/${id}.json: its id is ${definition.id}`);
    return [id, definition];
  }),
);
