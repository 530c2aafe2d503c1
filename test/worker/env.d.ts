import type { D1Migration } from 'cloudflare:test';

declare global {
  namespace Cloudflare {
    interface GlobalProps {
      mainModule: typeof import('../../worker/index');
    }
    interface Env {
      TEST_MIGRATIONS: D1Migration[];
      XDL_FUZZ_RUNS: number;
      COMPAS_AI_FIXTURE: { model: Record<string, unknown>; encoding: Record<string, unknown> } | null;
      SPEED_DATING_AI_FIXTURE: { model: Record<string, unknown>; encoding: Record<string, unknown> } | null;
      ML_FIXTURE: { model: unknown; encoding: unknown; expected: { rows: { x: (number | null)[]; raw_score: number; contrib: number[] }[] } } | null;
    }
  }
}
