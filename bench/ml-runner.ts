/**
 * One side of `npm run bench:ml`: a process that holds one version of the ML core and answers
 * timing requests, one JSON line in, one JSON line out, so the bench can interleave versions.
 *
 * It imports only `worker/ml`, through paths relative to itself: the bench copies this file into
 * a checkout of another git ref and bundles it there to time that ref's code. It therefore uses
 * only the API every version has had (compileModel, importLightgbmDump, predictRaw, treeShap with
 * a workspace, trainGbdt).
 *
 * Requests: {"task": "<kind>:<name>", "reps": n} → {"ms": total milliseconds for n repetitions}.
 * Kinds: predict / shap (per row of a fixture, cycling through its rows), train-ai (a dataset's
 * reference training split), train-user (200 weighted answers), accuracy (trains once, answers
 * {"accuracy"} on the held-out split).
 */
import { createInterface } from 'node:readline';
import { readFileSync } from 'node:fs';
import { importLightgbmDump } from '../worker/ml/lightgbm-import';
import { compileModel, type CompiledModel } from '../worker/ml/model';
import { predictProbability, predictRaw } from '../worker/ml/predict';
import { trainGbdt, type TrainingData } from '../worker/ml/train';
import { createShapWorkspace, treeShap } from '../worker/ml/treeshap';

/** The bench's inputs, written once by the orchestrator (NaN as null). */
export type BenchInputs = {
  fixtures: Record<string, { model: unknown; encoding: unknown; rows: (number | null)[][] }>;
  datasets: Record<
    string,
    {
      params: Record<string, number>;
      categoryCodes: Record<string, Record<string, number>>;
      train: SerializedData;
      test: SerializedData;
    }
  >;
  user: { params: Record<string, number>; data: SerializedData };
};
export type SerializedData = {
  featureNames: string[];
  categorical: boolean[];
  columns: (number | null)[][];
  labels: number[];
  weights?: number[];
};

const toFloat = (values: (number | null)[]) => Float64Array.from(values, (v) => (v === null ? NaN : v));
const toTraining = (d: SerializedData): TrainingData => ({
  featureNames: d.featureNames,
  categorical: d.categorical,
  columns: d.columns.map(toFloat),
  labels: d.labels,
  ...(d.weights ? { weights: d.weights } : {}),
});

const inputs = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as BenchInputs;
const fixtures = new Map<string, { model: CompiledModel; rows: Float64Array[] }>();
for (const [name, f] of Object.entries(inputs.fixtures)) {
  fixtures.set(name, { model: compileModel(importLightgbmDump(f.model, f.encoding)), rows: f.rows.map(toFloat) });
}
const training = new Map(Object.entries(inputs.datasets).map(([name, d]) => [name, { ...d, train: toTraining(d.train) }]));
const userData = toTraining(inputs.user.data);

let sink = 0;

function run(task: string, reps: number): Record<string, number> {
  const [kind, name = ''] = task.split(':');
  const started = performance.now();
  if (kind === 'predict' || kind === 'shap') {
    const { model, rows } = fixtures.get(name)!;
    const workspace = createShapWorkspace(model);
    for (let r = 0; r < reps; r++) {
      const x = rows[r % rows.length]!;
      sink += kind === 'predict' ? predictRaw(model, x) : treeShap(model, x, workspace)[0]!;
    }
  } else if (kind === 'train-ai') {
    const d = training.get(name)!;
    for (let r = 0; r < reps; r++) sink += trainGbdt(d.train, d.params, { categoryCodes: d.categoryCodes }).trees.length;
  } else if (kind === 'train-user') {
    for (let r = 0; r < reps; r++) sink += trainGbdt(userData, inputs.user.params).trees.length;
  } else if (kind === 'accuracy') {
    const d = training.get(name)!;
    const model = compileModel(trainGbdt(d.train, d.params, { categoryCodes: d.categoryCodes }));
    const test = d.test.columns.map(toFloat);
    let correct = 0;
    const x = new Float64Array(test.length);
    for (let i = 0; i < d.test.labels.length; i++) {
      for (let j = 0; j < test.length; j++) x[j] = test[j]![i]!;
      if ((predictProbability(model, x) > 0.5 ? 1 : 0) === d.test.labels[i]) correct++;
    }
    return { accuracy: correct / d.test.labels.length };
  } else {
    throw new Error(`unknown task ${task}`);
  }
  return { ms: performance.now() - started };
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const { task, reps } = JSON.parse(line) as { task: string; reps: number };
  try {
    process.stdout.write(`${JSON.stringify(run(task, reps))}\n`);
  } catch (error) {
    process.stdout.write(`${JSON.stringify({ error: String(error) })}\n`);
  }
});
process.stdout.write(`${JSON.stringify({ ready: true, sink })}\n`);
