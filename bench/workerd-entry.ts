/**
 * A Worker that runs one participant-facing explanation inside workerd for `npm run bench:ml`:
 * the AI model and the user model on the same case, each predicted and explained by TreeSHAP.
 * Each request runs it `reps` times; the host times requests from outside (workerd freezes its own
 * clocks during pure computation) and reads the process's CPU time from /proc.
 */
import { importLightgbmDump } from '../worker/ml/lightgbm-import';
import { compileModel, type CompiledModel } from '../worker/ml/model';
import { predictRaw } from '../worker/ml/predict';
import { createShapWorkspace, treeShap, type ShapWorkspace } from '../worker/ml/treeshap';

type Fixture = { model: unknown; encoding: unknown; rows: (number | null)[][] };
type Env = { FIXTURES: Record<string, Fixture> };
type Loaded = { model: CompiledModel; rows: Float64Array[]; workspace: ShapWorkspace; out: Float64Array };

const loaded = new Map<string, Loaded>();

function fixture(env: Env, name: string): Loaded {
  let entry = loaded.get(name);
  if (!entry) {
    const f = env.FIXTURES[name]!;
    const model = compileModel(importLightgbmDump(f.model, f.encoding));
    entry = {
      model,
      rows: f.rows.map((x) => Float64Array.from(x, (v) => (v === null ? NaN : v))),
      workspace: createShapWorkspace(model),
      out: new Float64Array(model.numFeatures + 1),
    };
    loaded.set(name, entry);
  }
  return entry;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    if (url.searchParams.get('op') !== 'explain-pair') return new Response('unknown op', { status: 400 });
    const reps = Number(url.searchParams.get('reps') ?? '1');
    const ai = fixture(env, 'adult_income/ai_model');
    const user = fixture(env, 'adult_income/user_model');
    let sink = 0;
    for (let r = 0; r < reps; r++) {
      const x = ai.rows[r % ai.rows.length]!;
      sink += predictRaw(ai.model, x) + treeShap(ai.model, x, ai.workspace, ai.out)[0]!;
      sink += predictRaw(user.model, x) + treeShap(user.model, x, user.workspace, user.out)[0]!;
    }
    return Response.json({ sink });
  },
};
