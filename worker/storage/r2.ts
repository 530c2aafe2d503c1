/**
 * Every R2 key the platform writes is built here, so the bucket layout is readable in one place.
 * MODELS bucket: ai-models/{dataset}/{modelIdentifier}.json, user-models/{dataset}/{sessionId}.json,
 * training-tables/{dataset}.json,
 * health/probe. EXPORTS bucket: exports/{yyyy-mm-dd}/{name}.
 */
import type { DatasetType } from '../schemas/study';

export const r2Keys = {
  aiModel: (dataset: DatasetType, modelIdentifier: string) => `ai-models/${dataset}/${modelIdentifier}.json`,
  userModel: (dataset: DatasetType, sessionId: string) => `user-models/${dataset}/${sessionId}.json`,
  userModelsPrefix: 'user-models/',
  /** The set-up's encoded training split of a dataset, which admin retraining reads. */
  trainingTable: (dataset: DatasetType) => `training-tables/${dataset}.json`,
  healthProbe: 'health/probe',
  exportsPrefix: 'exports/',
  export: (isoDate: string, fileName: string) => `exports/${isoDate.slice(0, 10)}/${fileName}`,
} as const;
