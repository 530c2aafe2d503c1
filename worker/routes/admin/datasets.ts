import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../../env';
import { datasetPreviewBodySchema, type datasetPreviewSchema } from '../../schemas/dataset-definition';
import { datasetDefinitions, DATASET_TYPES, studyConfig } from '../../schemas/study';
import { previewDataset } from '../../services/dataset-preview';
import { validate } from '../../validate';

/** The study's datasets as their definitions say, and the check of a new one (nothing stored); behind the admin guard. */
export const adminDatasetRoutes = new Hono<AppEnv>()
  .get('/', (c) =>
    c.json({
      datasets: DATASET_TYPES.map((id) => {
        const d = datasetDefinitions[id];
        return {
          id,
          name: { ja: d.texts.ja.name, en: d.texts.en.name },
          columns: d.columns.length,
          enabled: studyConfig.enabledDatasets.includes(id),
          source_files: d.source.files.map((f) => f.path),
          pools: { tutorial: d.pools.tutorial, pre: d.pools.pre, main: d.pools.main, main_pools: d.pools.mainPools },
        };
      }),
    }),
  )
  .post('/preview', validate('json', datasetPreviewBodySchema), async (c) => {
    const body = c.req.valid('json');
    const preview: z.infer<typeof datasetPreviewSchema> = await previewDataset({ definition: body.definition, csvBase64: body.csv_base64 });
    return c.json(preview);
  });
