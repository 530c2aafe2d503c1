/**
 * The real checks behind GET /api/status: a D1 query, an R2 write-read-delete round trip, and
 * whether every enabled dataset has an active AI model whose file is in R2.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { aiModels } from '../db/schema';
import type { StatusResponse } from '../schemas/api';
import { enabledDatasets } from '../schemas/study';
import { r2Keys } from '../storage/r2';

export async function checkDatabase(db: Db): Promise<StatusResponse['database']> {
  try {
    const row = await db.get<{ ok: number }>(sql`select 1 as ok`);
    return row?.ok === 1 ? 'connected' : 'disconnected';
  } catch (err) {
    console.error('status: D1 check failed', err);
    return 'disconnected';
  }
}

export async function checkStorage(bucket: R2Bucket): Promise<StatusResponse['storage']> {
  const probe = crypto.randomUUID();
  try {
    await bucket.put(r2Keys.healthProbe, probe);
    const read = await bucket.get(r2Keys.healthProbe);
    const ok = (await read?.text()) === probe;
    await bucket.delete(r2Keys.healthProbe);
    return ok ? 'connected' : 'disconnected';
  } catch (err) {
    console.error('status: R2 check failed', err);
    return 'disconnected';
  }
}

export async function checkMlPipeline(
  db: Db,
  bucket: R2Bucket,
): Promise<Pick<StatusResponse, 'ml_pipeline' | 'ml_models'>> {
  try {
    const active = await db
      .select({ datasetType: aiModels.datasetType, r2Key: aiModels.r2Key })
      .from(aiModels)
      .where(eq(aiModels.status, 'active'));
    const models: StatusResponse['ml_models'] = {};
    await Promise.all(
      enabledDatasets().map(async (dataset) => {
        const row = active.find((a) => a.datasetType === dataset);
        models[dataset] = row && (await bucket.head(row.r2Key)) ? 'ready' : 'missing';
      }),
    );
    const ready = Object.values(models).filter((s) => s === 'ready').length;
    const state = ready === enabledDatasets().length ? 'ready' : ready > 0 ? 'warning' : 'not_loaded';
    return { ml_pipeline: state, ml_models: models };
  } catch (err) {
    console.error('status: ML pipeline check failed', err);
    return { ml_pipeline: 'error', ml_models: {} };
  }
}
