import type { DatasetType } from '../schemas/study';

/** Names and task statements the API reports for each dataset (the SPA shows its own translations). */
export const DATASET_INFO: Record<DatasetType, { displayName: string; task: string }> = {
  adult_income: {
    displayName: 'Adult income',
    task: 'Predict whether the person earns more than $50,000 a year (1) or at most $50,000 (0).',
  },
  speed_dating: {
    displayName: 'Speed dating',
    task: 'Predict whether the person wants to see their date again (1) or not (0).',
  },
  compas: {
    displayName: 'COMPAS',
    task: 'Predict whether the defendant reoffends within two years (1) or not (0).',
  },
};
