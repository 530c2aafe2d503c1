/**
 * One dataset built from a definition and CSV text by the build both runtimes share
 * (worker/ml/dataset-build.ts): the vitest configuration builds it in Node and hands the model file
 * to workerd, where test/worker/build-reproducible.test.ts builds it again and compares the bytes.
 * A made-up loan task (test/helpers/synthetic-dataset.ts) with one main pool and half the rows held
 * out, so it is small enough to build at every start of the suite.
 */
import { buildDataset } from '../../worker/ml/dataset-build';
import { parseDatasetDefinition } from '../../worker/schemas/dataset-definition';
import { decodeSource, parseSource, readParsedDataset } from '../../worker/ml/dataset-source';
import { loanCsv, loanDefinition } from './synthetic-dataset';

export const RUNTIME_BUILD_ROWS = 1500;

/** The model file (as stored) and the report (with its baselines) of the made-up task, built in whatever runtime calls this. */
export function runtimeBuiltModel(): string {
  const csv = loanCsv(RUNTIME_BUILD_ROWS, 44);
  const definition = parseDatasetDefinition({ ...loanDefinition('0'.repeat(64)), pools: { seed: 5, mainPools: 1 }, split: { testSize: 0.5, seed: 42 } });
  const file = definition.source.files[0]!;
  const parsed = parseSource(definition, file, decodeSource(definition, file, new TextEncoder().encode(csv)));
  const { model, report } = buildDataset(readParsedDataset(definition, [parsed]));
  // The training time is the one figure that is the clock's, not the build's.
  return JSON.stringify({ model, report }, (key, value: unknown) => (key === 'training_time_seconds' ? 0 : value));
}
