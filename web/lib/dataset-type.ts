/**
 * Dataset-type resolution of part 1 §3/§4: a stored value first, then the session ID, then the
 * case data, then the default. The debug helper can force it to fail, to exercise error screens.
 */
import { DATASET_TYPES, isDatasetType, studyConfig, type DatasetType } from '../../worker/schemas/study-config';
import { readStorage, storageKeys } from './storage-keys';

export class DatasetTypeError extends Error {
  override readonly name = 'DatasetTypeError';
}

export type DatasetSource = 'stored' | 'session_id' | 'case_data' | 'default';

/** The dataset a case ID names (part 1 §3 "dataset inference from case"). */
export function datasetFromCaseId(caseId: string): DatasetType | null {
  const named = DATASET_TYPES.find((d) => caseId.includes(d));
  if (named) return named;
  if (caseId === 'tutorial_speed') return 'speed_dating';
  if (caseId === 'tutorial_compas') return 'compas';
  if (caseId === 'tutorial_1' || caseId === 'tutorial_2') return 'adult_income';
  if (caseId.startsWith('case_') || caseId.startsWith('main_case_')) return 'adult_income';
  return null;
}

const SIGNATURES: Record<DatasetType, readonly string[]> = {
  adult_income: ['workclass', 'fnlwgt', 'education', 'education_num', 'marital_status', 'occupation', 'relationship', 'capital_gain', 'capital_loss', 'hours_per_week', 'native_country'],
  speed_dating: ['field_cd', 'income', 'career_c', 'pf_o_att', 'pf_o_sin', 'pf_o_int', 'pf_o_fun', 'pf_o_amb', 'pf_o_sha', 'attr_o', 'sinc_o', 'intel_o', 'fun_o', 'amb_o', 'shar_o'],
  compas: ['juv_fel_count', 'juv_misd_count', 'juv_other_count', 'priors_count', 'c_charge_degree'],
};

/** COMPAS needs 2 of its distinctive fields; the others need 3 and a majority of their own. */
export function datasetFromFeatures(fields: Record<string, unknown>): DatasetType | null {
  const present = (d: DatasetType) => SIGNATURES[d].filter((f) => f in fields).length;
  if (present('compas') >= 2) return 'compas';
  for (const d of ['adult_income', 'speed_dating'] as const) {
    const n = present(d);
    if (n >= 3 && n > SIGNATURES[d].length / 2) return d;
  }
  return null;
}

export function resolveDatasetType(input: {
  sessionId?: string | null;
  caseData?: Record<string, unknown> | null;
  stored?: string | null;
}): { datasetType: DatasetType; source: DatasetSource } {
  if (readStorage(storageKeys.forceDatasetError) === 'true') {
    throw new DatasetTypeError('dataset type error forced by the debug helper');
  }
  const stored = input.stored ?? readStorage(storageKeys.datasetType);
  if (isDatasetType(stored)) return { datasetType: stored, source: 'stored' };
  const fromSession = input.sessionId ? DATASET_TYPES.find((d) => input.sessionId!.includes(d)) : undefined;
  if (fromSession) return { datasetType: fromSession, source: 'session_id' };
  const caseId = typeof input.caseData?.case_id === 'string' ? input.caseData.case_id : null;
  const fromCase = (caseId && datasetFromCaseId(caseId)) || (input.caseData ? datasetFromFeatures(input.caseData) : null);
  if (fromCase) return { datasetType: fromCase, source: 'case_data' };
  return { datasetType: studyConfig.defaultDatasetType, source: 'default' };
}
