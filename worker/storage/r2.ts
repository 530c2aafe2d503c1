/**
 * Every R2 key the platform writes is built here, so the bucket layout is readable in one place.
 * MODELS bucket: ai-models/{dataset}/{modelIdentifier}.json, user-models/{dataset}/{sessionId}.json (the current
 * model) and user-models/{dataset}/{sessionId}/{modelIdentifier}.json (versions a retrain replaced),
 * training-tables/{dataset}.json,
 * health/probe. EXPORTS bucket: exports/{yyyy-mm-dd}/{name}, and export-jobs/{job}/carry-{step}: a stepwise
 * export's bytes past its last uploaded part, from one step to the next; analytics/reliance/{population}.json: the
 * dashboard's kept reliance report.
 */
import type { DatasetType } from '../schemas/study';

export const r2Keys = {
  aiModel: (dataset: DatasetType, modelIdentifier: string) => `ai-models/${dataset}/${modelIdentifier}.json`,
  userModel: (dataset: DatasetType, sessionId: string) => `user-models/${dataset}/${sessionId}.json`,
  userModelVersion: (dataset: DatasetType, sessionId: string, modelIdentifier: string) => `user-models/${dataset}/${sessionId}/${modelIdentifier}.json`,
  userModelsPrefix: 'user-models/',
  /** The set-up's encoded training split of a dataset, which admin retraining reads. */
  trainingTable: (dataset: DatasetType) => `training-tables/${dataset}.json`,
  healthProbe: 'health/probe',
  exportsPrefix: 'exports/',
  export: (isoDate: string, fileName: string) => `exports/${isoDate.slice(0, 10)}/${fileName}`,
  exportCarry: (jobId: string, step: number) => `export-jobs/${jobId}/carry-${step}`,
  relianceReportsPrefix: 'analytics/reliance/',
  relianceReport: (population: string) => `analytics/reliance/${population}.json`,
} as const;
