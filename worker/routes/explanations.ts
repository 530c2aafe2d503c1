import { Hono } from 'hono';
import type { Db } from '../db/client';
import type { AppEnv } from '../env';
import { AppError, notFound } from '../errors';
import type { z } from 'zod';
import { hasAdminSession } from '../middleware/admin-auth';
import { caseIdParamSchema } from '../schemas/experiment';
import { aiExplanationQuerySchema, explanationBodySchema, mainPredictBodySchema, mainPredictQuerySchema, type aiExplanationResponseSchema, type ExplanationResponse, type KeptJudgement } from '../schemas/main-experiment';
import { findCase } from '../services/case-sets';
import { aiExplanation, explanationInputs, serveCase } from '../services/explanation';
import { mainSetItem } from '../services/main-case-sets';
import { requireSession } from '../services/sessions';
import { requireWriteAllowed } from '../db/session-lifecycle';
import { validate, validateOptionalJson } from '../validate';

type AiOnlyResponse = z.infer<typeof aiExplanationResponseSchema>;

/** A session's serve in the spec's AI-only shape (the bars shown as `feature_importance`), with the serve whole beside it. */
const inFallbackShape = (e: ExplanationResponse): AiOnlyResponse => ({
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
  explanation: e,
});

/** The initial judgement a revealing request carries (the schemas require all three parts or none). */
const carriedInitial = (v: {
  initial_prediction?: 0 | 1;
  initial_confidence?: number;
  initial_response_time_ms?: number;
  initial_reasoning?: string | null;
  initial_timed_out?: boolean;
}): KeptJudgement | null =>
  v.initial_prediction === undefined || v.initial_confidence === undefined || v.initial_response_time_ms === undefined
    ? null
    : {
        prediction: v.initial_prediction,
        confidence: v.initial_confidence,
        response_time_ms: v.initial_response_time_ms,
        reasoning: v.initial_reasoning || null,
        timed_out: v.initial_timed_out ?? false,
      };

/**
 * A participant's explanation inputs, checked: the session exists and may be served (its main
 * experiment started), the case exists and is of its dataset. 404 / 409 / 400 otherwise; nothing
 * is changed by a refusal.
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

/**
 * Every route here that gives anything of the AI to a participant goes through `serveCase`: the
 * session's own main-set case or the practice case, as its condition shows it, recorded. Which
 * route asked (the human-aligned call, the AI-only fallback, `main/predict`) changes nothing of
 * what is served: the server decides it.
 */
export const explanationRoutes = new Hono<AppEnv>()
  // Answers 404 for an unknown participant, so it is limited like every ID lookup.
  .post('/human-aligned-explanation', validate('json', explanationBodySchema), async (c) => {
    const body = c.req.valid('json');
    const caseId = body.case_id ?? body.case_data?.case_id;
    if (!caseId) throw new AppError(400, 'validation_failed', [{ msg: 'case_id is required', loc: ['case_id'] }]);
    const inputs = await participantCase(c.var.db, body.session_id, caseId);
    c.set('ownCaseSet', inputs.setItem !== null);
    // The body's alignment_alpha is the spec's field; the alpha is the server's (the set's, or the practice case's).
    return c.json(await serveCase(c.var.db, c.env.MODELS, inputs, { now: new Date().toISOString(), initial: carriedInitial(body) }));
  })
  // The AI-only fallback. With a session, the same serve the human-aligned call gives (the server
  // decides its kind), in the spec's AI-only shape. Without one, the active model's own
  // explanation of a practice case, which no participant judges; of any other case only for an
  // administrator, so no participant learns the AI's answer outside a recorded serve.
  .get('/experiments/explanations/:caseId', validate('param', caseIdParamSchema), validate('query', aiExplanationQuerySchema), async (c) => {
    const { caseId } = c.req.valid('param');
    const query = c.req.valid('query');
    const sessionId = query.session_id;
    if (!sessionId) {
      c.set('ownCaseSet', true);
      const caseRow = await findCase(c.var.db, caseId);
      if (!caseRow) throw notFound(`Case ${caseId} not found`);
      if (caseRow.pool !== 'tutorial' && !(await hasAdminSession(c))) {
        throw new AppError(
          403,
          'explanation_needs_session',
          `Case ${caseId} is one participants judge: the AI's answer for it is given only to a session it is shown to (send session_id), or to an administrator`,
        );
      }
      const ai = await aiExplanation(c.var.db, c.env.MODELS, caseRow);
      return c.json({
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
        served_explanation_id: null,
        explanation: null,
      } satisfies AiOnlyResponse);
    }
    const inputs = await participantCase(c.var.db, sessionId, caseId);
    c.set('ownCaseSet', inputs.setItem !== null);
    return c.json(inFallbackShape(await serveCase(c.var.db, c.env.MODELS, inputs, { now: new Date().toISOString(), initial: carriedInitial(query) })));
  })
  // The case is the one at `case_index` of the session's stored set; a client's case_data is ignored.
  .post('/experiments/main/predict', validate('query', mainPredictQuerySchema), validateOptionalJson(mainPredictBodySchema), async (c) => {
    const { session_id, case_index } = c.req.valid('query');
    const item = await mainSetItem(c.var.db, session_id, { position: case_index });
    if (!item) {
      await requireSession(c.var.db, session_id);
      throw notFound(`No case ${case_index} in the main-experiment set of ${session_id}; start the main experiment first`);
    }
    const inputs = await participantCase(c.var.db, session_id, item.row.caseId);
    const initial = carriedInitial(c.req.valid('json'));
    return c.json(inFallbackShape(await serveCase(c.var.db, c.env.MODELS, inputs, { now: new Date().toISOString(), initial })));
  });
