/**
 * What the entry page asks before anyone joins (is the study open, which dataset would a new
 * participant get) and how joining can fail. Joining itself is in joining.ts.
 */
import type { DatasetType } from '../../../worker/schemas/study-config';
import { api, unwrap } from '../../lib/api';

export type ForcedDataset = { datasetType: DatasetType; source: 'url' | 'selection' };

export type SetupErrorKind = 'dataset_type' | 'session' | 'network';

export class SetupError extends Error {
  override readonly name = 'SetupError';
  constructor(readonly kind: SetupErrorKind, cause: unknown) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** The study admits nobody new (the dashboard paused or closed it): nothing was stored. */
export type Unavailability = 'paused' | 'closed' | 'full';
export class StudyUnavailableError extends Error {
  override readonly name = 'StudyUnavailableError';
  constructor(readonly status: Unavailability) {
    super(`study ${status}`);
  }
}

/** Whether the study admits newcomers now, and where a Prolific participant returns when it does not. */
export async function recruitmentNow() {
  return unwrap(await api.api.recruitment.$get());
}

/** The balanced dataset the server would give now, for the entry page's hidden marker. */
export async function suggestedDataset(): Promise<DatasetType> {
  return (await unwrap(await api.api.experiments['dataset-assignment'].balanced.$get())).dataset_type;
}
