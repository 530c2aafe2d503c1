import { Hono } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv } from '../env';
import { AppError, notFound } from '../errors';
import type { z } from 'zod';
import { caseIdParamSchema } from '../schemas/experiment';
import { aiExplanationQuerySchema, explanationBodySchema, mainPredictBodySchema, mainPredictQuerySchema, type aiExplanationResponseSchema, type ExplanationResponse, type KeptJudgement } from '../schemas/main-experiment';
import { studyConfig } from '../schemas/study';
import { findCase } from '../services/case-sets';
import { aiExplanation, explainForSession, explanationInputs, serveMainCase } from '../services/explanation';
import { mainSetItem } from '../services/main-case-sets';
import { requireSession } from '../services/sessions';
import { requireWriteAllowed } from '../services/session-lifecycle';
import { validate, validateOptionalJson } from '../validate';
import { explanationLimit, idLookupLimit } from './sessions';

type FallbackParts = Pick<
  ExplanationResponse,
  'case_id' | 'dataset_type' | 'prediction' | 'ai_probability' | 'ai_base_probability' | 'model_identifier' | 'model_test_accuracy' | 'shown_feature_importance' | 'served_explanation_id'
>;

/** An explanation in the spec's AI-only fallback shape (the bars shown as `feature_importance`). */
const inFallbackShape = (e: FallbackParts): z.infer<typeof aiExplanationResponseSchema> => ({
  success: true,
  case_id: e.case_id,
  dataset_type: e.dataset_type,
  prediction: e.prediction,
  probability: e.ai_probability,
  base_probability: e.ai_base_probability,
  model_identifier: e.model_identifier,
  model_test_accuracy: e.model_test_accuracy,
  feature_importance: e.shown_feature_importance,
  raw_shap_based: true,
  requires_frontend_normalization: false,
  served_explanation_id: e.served_explanation_id,
});

/** The initial judgement a revealing request carries (the schemas require all three parts or none). */
const carriedInitial = (v: { initial_prediction?: 0 | 1; initial_confidence?: number; initial_response_time_ms?: number; initial_reasoning?: string | null }): KeptJudgement | null =>
  v.initial_prediction === undefined || v.initial_confidence === undefined || v.initial_response_time_ms === undefined
    ? null
    : { prediction: v.initial_prediction, confidence: v.initial_confidence, response_time_ms: v.initial_response_time_ms, reasoning: v.initial_reasoning || null };

/**
 * A participant's explanation inputs, checked: the session exists and may be served, the case
 * exists and is of its dataset. 404 / 409 / 400 otherwise; nothing is changed by a refusal.
 */
async function participantCase(db: Db, sessionId: string, caseId: string) {
  const inputs = await explanationInputs(db, sessionId, caseId);
  const { session, caseRow } = inputs;
  if (!session) throw notFound(`No experiment session for participant ${sessionId}`);
  requireWriteAllowed(session, 'explanation');
  if (!caseRow) throw notFound(`Case ${caseId} not found`);
  if (caseRow.datasetType !== session.datasetType) {
    throw new AppError(400, 'dataset_mismatch', [{ msg: `case ${caseId} is not a ${session.datasetType} case`, loc: ['case_id'] }]);
  }
  return { ...inputs, session, caseRow };
}

export const explanationRoutes = new Hono<AppEnv>()
  // Answers 404 for an unknown participant, so it is limited like every ID lookup.
  .post('/human-aligned-explanation', explanationLimit, validate('json', explanationBodySchema), async (c) => {
    const body = c.req.valid('json');
    const caseId = body.case_id ?? body.case_data?.case_id;
    if (!caseId) throw new AppError(400, 'validation_failed', [{ msg: 'case_id is required', loc: ['case_id'] }]);
    const inputs = await participantCase(c.var.db, body.session_id, caseId);
    c.set('ownCaseSet', inputs.setItem !== null);
    const { session, caseRow, setItem } = inputs;
    if (!setItem) {
      // Outside the main set (the tutorial's practice case): the alpha asked for, and no trial to record.
      const alpha = body.alignment_alpha ?? studyConfig.mainExperiment.fallbackAlpha;
      const { explanation } = await explainForSession(c.env.MODELS, { sessionId: session.sessionId, caseRow, alpha, aiRow: session.ai, userModel: inputs.userModel });
      return c.json(explanation);
    }
    // A case of the session's main set: as its condition shows it, with the alpha fixed with the set, recorded.
    return c.json(await serveMainCase(c.var.db, c.env.MODELS, { ...inputs, setItem }, { aiOnly: false, now: new Date().toISOString(), initial: carriedInitial(body) }));
  })
  // The AI-only fallback. Without a session, the active model's explanation, the same for everyone
  // (it says nothing about any participant). With one, the session's pinned model as its condition
  // shows it, recorded for a case of its main set; that tells a known ID, so it is limited like one.
  .get('/experiments/explanations/:caseId', explanationLimit, validate('param', caseIdParamSchema), validate('query', aiExplanationQuerySchema), async (c) => {
    const { caseId } = c.req.valid('param');
    const query = c.req.valid('query');
    const sessionId = query.session_id;
    if (!sessionId) {
      c.set('ownCaseSet', true);
      const caseRow = await findCase(c.var.db, caseId);
      if (!caseRow) throw notFound(`Case ${caseId} not found`);
      const ai = await aiExplanation(c.var.db, c.env.MODELS, caseRow);
      return c.json(
        inFallbackShape({
          case_id: caseRow.caseId,
          dataset_type: caseRow.datasetType,
          prediction: ai.prediction,
          ai_probability: ai.probability,
          ai_base_probability: ai.baseProbability,
          model_identifier: ai.modelIdentifier,
          model_test_accuracy: ai.testAccuracy,
          shown_feature_importance: ai.shares,
          served_explanation_id: null,
        }),
      );
    }
    const inputs = await participantCase(c.var.db, sessionId, caseId);
    c.set('ownCaseSet', inputs.setItem !== null);
    const { session, caseRow, setItem } = inputs;
    if (!setItem) {
      const { explanation } = await explainForSession(c.env.MODELS, { sessionId, caseRow, alpha: 1, aiRow: session.ai, userModel: null, aiOnly: true });
      return c.json(inFallbackShape(explanation));
    }
    return c.json(inFallbackShape(await serveMainCase(c.var.db, c.env.MODELS, { ...inputs, setItem }, { aiOnly: true, now: new Date().toISOString(), initial: carriedInitial(query) })));
  })
  // The case is the one at `case_index` of the session's stored set; a client's case_data is ignored.
  // Answered as the session's condition shows the case (the AI's own bars, or its prediction alone), from its pinned model, and recorded.
  .post('/experiments/main/predict', idLookupLimit, validate('query', mainPredictQuerySchema), validateOptionalJson(mainPredictBodySchema), async (c) => {
    const { session_id, case_index } = c.req.valid('query');
    const item = await mainSetItem(c.var.db, session_id, { position: case_index });
    if (!item) {
      await requireSession(c.var.db, session_id);
      throw notFound(`No case ${case_index} in the main-experiment set of ${session_id}; start the main experiment first`);
    }
    const inputs = await participantCase(c.var.db, session_id, item.row.caseId);
    const initial = carriedInitial(c.req.valid('json'));
    return c.json(inFallbackShape(await serveMainCase(c.var.db, c.env.MODELS, { ...inputs, setItem: inputs.setItem! }, { aiOnly: true, now: new Date().toISOString(), initial })));
  });
