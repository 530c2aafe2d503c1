import { Hono } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv } from '../env';
import { AppError, conflict, notFound } from '../errors';
import type { z } from 'zod';
import { caseIdParamSchema } from '../schemas/experiment';
import { explanationBodySchema, mainPredictBodySchema, mainPredictQuerySchema, type aiExplanationResponseSchema } from '../schemas/main-experiment';
import { studyConfig } from '../schemas/study';
import { findCase } from '../services/case-sets';
import { conditionOf } from '../services/conditions';
import { aiExplanation, explainForSession, explanationInputs, predictionOnly } from '../services/explanation';
import { alphaOfItem, mainSetItem } from '../services/main-case-sets';
import { requireSession } from '../services/sessions';
import { requireNotScreenedOut } from '../services/understanding-test';
import { validate, validateOptionalJson } from '../validate';
import { explanationLimit, idLookupLimit } from './sessions';

/** The AI-only explanation of a case in the spec's fallback shape, by the session's AI model when there is a session. */
async function aiOnly(db: Db, bucket: R2Bucket, caseRow: Parameters<typeof aiExplanation>[2], sessionId?: string): Promise<z.infer<typeof aiExplanationResponseSchema>> {
  const ai = await aiExplanation(db, bucket, caseRow, sessionId);
  return {
    success: true,
    case_id: caseRow.caseId,
    dataset_type: caseRow.datasetType,
    prediction: ai.prediction,
    probability: ai.probability,
    base_probability: ai.baseProbability,
    model_identifier: ai.modelIdentifier,
    model_test_accuracy: ai.testAccuracy,
    feature_importance: ai.shares,
    raw_shap_based: true,
    requires_frontend_normalization: false,
  };
}

export const explanationRoutes = new Hono<AppEnv>()
  // Answers 404 for an unknown participant, so it is limited like every ID lookup.
  .post('/human-aligned-explanation', explanationLimit, validate('json', explanationBodySchema), async (c) => {
    const body = c.req.valid('json');
    const caseId = body.case_id ?? body.case_data?.case_id;
    if (!caseId) throw new AppError(400, 'validation_failed', [{ msg: 'case_id is required', loc: ['case_id'] }]);
    const inputs = await explanationInputs(c.var.db, body.session_id, caseId);
    const { session, caseRow } = inputs;
    if (!session) throw notFound(`No experiment session for participant ${body.session_id}`);
    requireNotScreenedOut(session);
    if (!caseRow) throw notFound(`Case ${caseId} not found`);
    if (caseRow.datasetType !== session.datasetType) {
      throw new AppError(400, 'dataset_mismatch', [{ msg: `case ${caseId} is not a ${session.datasetType} case`, loc: ['case_id'] }]);
    }
    c.set('ownCaseSet', inputs.setItem !== null);
    if (!inputs.setItem) {
      // Outside the main set (the tutorial's practice case, the registration tools): the alpha asked for.
      const alpha = body.alignment_alpha ?? studyConfig.mainExperiment.fallbackAlpha;
      return c.json(await explainForSession(c.env.MODELS, { sessionId: session.sessionId, caseRow, alpha, aiRow: session.ai, userModel: inputs.userModel }));
    }
    // A case of the session's main set is explained as its condition says, with the alpha fixed with the set.
    const condition = conditionOf(session);
    if (condition.shows === 'none') throw conflict('no_ai_in_condition', `Participant ${session.sessionId} is in condition ${condition.name}, which shows no AI`);
    const alpha = alphaOfItem(condition, inputs.setItem.storedAlpha) ?? studyConfig.mainExperiment.fallbackAlpha;
    const explanation = await explainForSession(c.env.MODELS, { sessionId: session.sessionId, caseRow, alpha, aiRow: session.ai, userModel: inputs.userModel });
    return c.json(condition.shows === 'ai_prediction' ? predictionOnly(explanation) : explanation);
  })  // The AI-only fallback: the same for everyone, so it says nothing about any participant.
  .get('/experiments/explanations/:caseId', validate('param', caseIdParamSchema), async (c) => {
    const { caseId } = c.req.valid('param');
    const caseRow = await findCase(c.var.db, caseId);
    if (!caseRow) throw notFound(`Case ${caseId} not found`);
    return c.json(await aiOnly(c.var.db, c.env.MODELS, caseRow));
  })
  // The case is the one at `case_index` of the session's stored set; a client's case_data is ignored.
  .post('/experiments/main/predict', idLookupLimit, validate('query', mainPredictQuerySchema), validateOptionalJson(mainPredictBodySchema), async (c) => {
    const { session_id, case_index } = c.req.valid('query');
    const session = await requireSession(c.var.db, session_id);
    const item = await mainSetItem(c.var.db, session.sessionId, { position: case_index });
    if (!item) throw notFound(`No case ${case_index} in the main-experiment set of ${session.sessionId}; start the main experiment first`);
    return c.json(await aiOnly(c.var.db, c.env.MODELS, item.row, session.sessionId));
  });
