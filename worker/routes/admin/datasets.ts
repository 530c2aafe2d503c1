import { Hono } from 'hono';
import { BUILT_IN_DATASET_IDS } from '../../schemas/datasets';
import type { z } from 'zod';
import { desc } from 'drizzle-orm';
import { addedDatasets } from '../../db/schema';
import type { AppEnv } from '../../env';
import { datasetEnabledBodySchema, datasetParamSchema, datasetPreviewBodySchema, type datasetPreviewSchema } from '../../schemas/dataset-definition';
import { DATASET_TYPES, datasetDefinitions, enabledDatasets } from '../../schemas/study';
import { addDataset, setDatasetEnabled } from '../../services/dataset-addition';
import { previewDataset } from '../../services/dataset-preview';
import { REFRESH_MS } from '../../services/dataset-registry';
import { validate } from '../../validate';

/**
 * The study's datasets as their definitions say; the check of a new one (nothing stored); adding
 * it (built inside the Worker) and offering it to new sessions. Behind the admin guard.
 */
export const adminDatasetRoutes = new Hono<AppEnv>()
  .get('/', async (c) => {
    const added = await c.var.db.select().from(addedDatasets).orderBy(desc(addedDatasets.createdAt)).all();
    const enabled = enabledDatasets();
    return c.json({
      datasets: DATASET_TYPES.map((id) => {
        const d = datasetDefinitions[id]!;
        // A set-up file's dataset is built in whatever D1 holds (set-up refuses to seed an id the
        // dashboard added, but a database may predate that): its row there is not this dataset's.
        const row = BUILT_IN_DATASET_IDS.includes(id) ? undefined : added.find((a) => a.datasetType === id);
        return {
          id,
          name: { ja: d.texts.ja.name, en: d.texts.en.name },
          columns: d.columns.length,
          enabled: enabled.includes(id),
          source_files: d.source.files.map((f) => f.path),
          pools: { tutorial: d.pools.tutorial, pre: d.pools.pre, main: d.pools.main, main_pools: d.pools.mainPools },
          /** Added on the dashboard (enabled there), or built in (enabled by the study configuration). */
          added: row
            ? {
                added_at: row.createdAt,
                /** When every copy of the Worker knows it, and it may be offered to new sessions. */
                offerable_from: new Date(Date.parse(row.createdAt) + REFRESH_MS).toISOString(),
                cases: row.caseCount,
                rows: row.sourceRows,
                source_sha256: row.sourceSha256,
                model_identifier: row.modelIdentifier,
              }
            : null,
        };
      }),
    });
  })
  .post('/preview', validate('json', datasetPreviewBodySchema), async (c) => {
    const body = c.req.valid('json');
    const preview: z.infer<typeof datasetPreviewSchema> = await previewDataset({ definition: body.definition, csvBase64: body.csv_base64 });
    return c.json(preview);
  })
  .post('/', validate('json', datasetPreviewBodySchema), async (c) => {
    const body = c.req.valid('json');
    const added = await addDataset(c.var.db, c.env.MODELS, { definition: body.definition, csvBase64: body.csv_base64, now: () => new Date() });
    c.set('audit', { action: 'dataset_added', targetType: 'dataset', targetId: added.dataset, details: { ...added } });
    return c.json(added, 201);
  })
  .post('/:dataset/enabled', validate('param', datasetParamSchema), validate('json', datasetEnabledBodySchema), async (c) => {
    const { dataset } = c.req.valid('param');
    const result = await setDatasetEnabled(c.var.db, { dataset, enabled: c.req.valid('json').enabled, now: new Date() });
    c.set('audit', { action: result.enabled ? 'dataset_enabled' : 'dataset_disabled', targetType: 'dataset', targetId: dataset });
    return c.json(result);
  });
