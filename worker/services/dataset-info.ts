import { datasetOf } from '../schemas/datasets';
import type { DatasetType } from '../schemas/study';

/** The name and task statement the API reports for a dataset, in English, from its definition (the SPA shows its own translations). */
export function datasetInfo(dataset: DatasetType): { displayName: string; task: string } {
  const { name, task, positive, negative } = datasetOf(dataset).texts.en;
  return { displayName: name, task: `${task} (1: ${positive}; 0: ${negative})` };
}
