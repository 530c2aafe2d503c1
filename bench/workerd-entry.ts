/**
 * A Worker that times the ML core from inside workerd. Each request runs one operation `reps`
 * times; the host times the request from outside (workerd freezes its own clocks during pure
 * computation), subtracting a `reps=0` call of the same operation.
 */
import { importLightgbmDump } from '../worker/ml/lightgbm-import';
import { compileModel, type CompiledModel } from '../worker/ml/model';
import { predictRaw } from '../worker/ml/predict';
import { trainGbdt, type TrainingData } from '../worker/ml/train';
import { createShapWorkspace, treeShap } from '../worker/ml/treeshap';

type Fixture = { model: unknown; encoding: unknown; rows: (number | null)[][] };
type Env = { FIXTURES: Record<string, Fixture>; USER_TRAINING: { columns: (number | null)[][]; labels: number[]; categorical: boolean[]; featureNames: string[] } };

const compiled = new Map<string, { model: CompiledModel; rows: Float64Array[] }>();

function fixture(env: Env, name: string) {
  let entry = compiled.get(name);
  if (!entry) {
    const f = env.FIXTURES[name]!;
    entry = {
      model: compileModel(importLightgbmDump(f.model, f.encoding)),
      rows: f.rows.map((x) => Float64Array.from(x, (v) => (v === null ? NaN : v))),
    };
    compiled.set(name, entry);
  }
  return entry;
}

export const USER_MODEL_PARAMS = { numTrees: 50, numLeaves: 8, maxDepth: 3, learningRate: 0.1, minDataInLeaf: 5 };

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const op = url.searchParams.get('op');
    const reps = Number(url.searchParams.get('reps') ?? '1');
    const name = url.searchParams.get('fixture') ?? '';
    let sink = 0;
    if (op === 'predict' || op === 'shap') {
      const { model, rows } = fixture(env, name);
      const workspace = createShapWorkspace(model);
      for (let r = 0; r < reps; r++) {
        const x = rows[r % rows.length]!;
        sink += op === 'predict' ? predictRaw(model, x) : treeShap(model, x, workspace)[0]!;
      }
    } else if (op === 'train-user') {
      const t = env.USER_TRAINING;
      const data: TrainingData = {
        featureNames: t.featureNames,
        categorical: t.categorical,
        columns: t.columns.map((c) => Float64Array.from(c, (v) => (v === null ? NaN : v))),
        labels: t.labels,
      };
      for (let r = 0; r < reps; r++) sink += trainGbdt(data, USER_MODEL_PARAMS).trees.length;
    } else if (op === 'explain-pair') {
      // One participant-facing explanation: the AI model and the user model on the same case.
      const ai = fixture(env, 'adult_income/ai_model');
      const user = fixture(env, 'adult_income/user_model');
      const aiWorkspace = createShapWorkspace(ai.model);
      const userWorkspace = createShapWorkspace(user.model);
      for (let r = 0; r < reps; r++) {
        const x = ai.rows[r % ai.rows.length]!;
        sink += predictRaw(ai.model, x) + treeShap(ai.model, x, aiWorkspace)[0]! + predictRaw(user.model, x) + treeShap(user.model, x, userWorkspace)[0]!;
      }
    } else {
      return new Response('unknown op', { status: 400 });
    }
    return Response.json({ sink });
  },
};
