import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { BUILT_IN_DATASET_IDS, DATASET_IDS, DATASETS } from '../schemas/datasets';
import { enabledDatasets } from '../schemas/study';
import { REFRESH_MS } from '../services/dataset-registry';

/**
 * GET /api/datasets: what participants' pages need of the datasets administrators added on the
 * dashboard (those the SPA was built with it has already), and which datasets new sessions may
 * get. Public: it holds only what a participant's screen shows, never a source or a case.
 */
export const datasetRoutes = new Hono<AppEnv>().get('/', (c) => {
  c.header('Cache-Control', `public, max-age=${REFRESH_MS / 1000}`);
  return c.json({
    enabled: enabledDatasets(),
    added: DATASET_IDS.filter((id) => !BUILT_IN_DATASET_IDS.includes(id)).map((id) => DATASETS[id]!),
  });
});
