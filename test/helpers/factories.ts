/**
 * Synthetic test data. Tests outside ../shared never use real dataset rows: they build cases and
 * answers here, each with unique ids.
 */
import { seededRandom } from '../../worker/ml/random';
import type { TrainingData } from '../../worker/ml/train';

// Seeded, so a factory call always returns the same data for the same seed.
export { seededRandom };

export const SYNTHETIC_FEATURES = ['age', 'education_num', 'hours_per_week', 'workclass', 'capital_gain'] as const;

/**
 * Adult-like rows judged by a synthetic participant: "high income" if educated and over 30 or
 * working long hours, flipped 15% of the time; some values missing.
 */
export function syntheticParticipantData(rows: number, seed: number): TrainingData {
  const random = seededRandom(seed);
  const columns = SYNTHETIC_FEATURES.map(() => new Float64Array(rows));
  const labels = new Uint8Array(rows);
  for (let i = 0; i < rows; i++) {
    const age = 17 + Math.floor(random() * 60);
    const education = 1 + Math.floor(random() * 16);
    const hours = 10 + Math.floor(random() * 60);
    const workclass = Math.floor(random() * 7);
    const gain = random() < 0.1 ? Math.floor(random() * 20000) : 0;
    columns[0]![i] = age;
    columns[1]![i] = education;
    columns[2]![i] = random() < 0.05 ? NaN : hours;
    columns[3]![i] = random() < 0.05 ? NaN : workclass;
    columns[4]![i] = gain;
    const rule = (education >= 11 && age >= 30) || hours >= 50 ? 1 : 0;
    labels[i] = random() < 0.15 ? 1 - rule : rule;
  }
  return {
    featureNames: [...SYNTHETIC_FEATURES],
    categorical: SYNTHETIC_FEATURES.map((f) => f === 'workclass'),
    columns,
    labels,
  };
}

/** Row i of column-major data as a model input. */
export const rowOf = (data: TrainingData, i: number) => Float64Array.from(data.columns, (c) => c[i]!);
