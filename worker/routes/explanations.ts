import { Hono } from 'hono';
import type { AppEnv } from '../env';
import { AppError, notFound } from '../errors';
import { explanationBodySchema } from '../schemas/main-experiment';
import { studyConfig } from '../schemas/study';
import { findCase } from '../services/case-sets';
import { explainCase } from '../services/explanation';
import { storedMainCaseSet } from '../services/main-case-sets';
import { requireSession } from '../services/sessions';
import { validate } from '../validate';
import { idLookupLimit } from './sessions';

export const explanationRoutes = new Hono<AppEnv>()
  // Answers 404 for an unknown participant, so it is limited like every ID lookup.
  .post('/human-aligned-explanation', idLookupLimit, validate('json', explanationBodySchema), async (c) => {
    const body = c.req.valid('json');
    const caseId = body.case_id ?? body.case_data?.case_id;
    if (!caseId) throw new AppError(400, 'validation_failed', [{ msg: 'case_id is required', loc: ['case_id'] }]);
    const session = await requireSession(c.var.db, body.session_id);
    const caseRow = await findCase(c.var.db, caseId);
    if (!caseRow) throw notFound(`Case ${caseId} not found`);
    if (caseRow.datasetType !== session.datasetType) {
      throw new AppError(400, 'dataset_mismatch', [{ msg: `case ${caseId} is not a ${session.datasetType} case`, loc: ['case_id'] }]);
    }
    // A case of the session's main set always gets the alpha fixed with the set.
    const inSet = (await storedMainCaseSet(c.var.db, session.sessionId)).find((item) => item.row.caseId === caseId);
    const alpha = inSet?.alpha ?? body.alignment_alpha ?? studyConfig.mainExperiment.fallbackAlpha;
    return c.json(await explainCase(c.var.db, c.env.MODELS, { sessionId: session.sessionId, caseRow, alpha }));
  });
