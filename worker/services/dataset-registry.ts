/**
 * The datasets administrators added on the dashboard, joined to those the Worker was built with.
 * Each isolate reads them from D1 before serving an API request, at most every REFRESH_MS (and at
 * once after it adds or enables one itself): the definitions join `datasetDefinitions` and the
 * participant registry, and the enabled ones join the datasets new sessions may get. An added
 * dataset is never changed or removed, so an isolate's copy is only ever missing the newest.
 */
import type { Db } from '../db/client';
import { addedDatasets } from '../db/schema';
import { parseDatasetDefinition, shownDefinition } from '../schemas/dataset-definition';
import { registerDatasets, setEnabledAdded } from '../schemas/datasets';
import { datasetDefinitions } from '../schemas/study';

/**
 * How stale an isolate's list may be. Any request this long after a dataset was added finds it
 * known, wherever it is served, so a dataset is offered to new sessions only from then on
 * (`setDatasetEnabled`); one enabled or disabled reaches every isolate within this too.
 */
export const REFRESH_MS = 5_000;

/** When the last read that completed began: what is known is at least as new as this. */
let knownAsOf = Number.NEGATIVE_INFINITY;

async function readAdded(db: Db): Promise<void> {
  const rows = await db.select({ id: addedDatasets.datasetType, definition: addedDatasets.definition, enabled: addedDatasets.enabled }).from(addedDatasets).all();
  const fresh = rows
    .filter((r) => !datasetDefinitions[r.id])
    .map((r) => parseDatasetDefinition(r.definition, `the added dataset ${r.id}`));
  for (const definition of fresh) datasetDefinitions[definition.id] = definition;
  registerDatasets(fresh.map(shownDefinition));
  setEnabledAdded(rows.filter((r) => r.enabled).map((r) => r.id));
}

/**
 * Brings this isolate's datasets up to date with D1 (`force`: now; else when what is known was read
 * more than REFRESH_MS ago). Each request that needs a read makes its own: a Worker request may not
 * wait on I/O another request started.
 */
export async function syncAddedDatasets(db: Db, options: { force?: boolean } = {}): Promise<void> {
  const started = Date.now();
  if (!options.force && started - knownAsOf < REFRESH_MS) return;
  await readAdded(db);
  knownAsOf = Math.max(knownAsOf, started);
}
