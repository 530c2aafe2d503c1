import { Hono } from 'hono';
import type { z } from 'zod';
import type { AppEnv } from '../env';
import { AppError, conflict } from '../errors';
import {
  alignmentAlphaParamSchema,
  feedbackViewedBodySchema,
  integratedResponseBodySchema,
  outcomeFeedbackQuerySchema,
  type integratedResponseResultSchema,
  mainStartBodySchema,
  mainStartQuerySchema,
  type alignmentAlphaResponseSchema,
  type mainStartResponseSchema,
  type mainSummaryResponseSchema,
  trialProgressBodySchema,
  type trialProgressResultSchema,
  understandingAttemptBodySchema,
  type understandingAttemptResultSchema,
} from '../schemas/main-experiment';
import { sessionParamSchema } from '../schemas/experiment';
import { storeUnderstandingAttempt } from '../services/understanding-test';
import { requireWriteAllowed } from '../db/session-lifecycle';
import { ensureUserModel } from '../services/user-model';
import { answerWriteLimit, attemptWriteLimit } from './sessions';
import { studyConfig } from '../schemas/study';
import { alphaSchedule } from '../services/alignment';
import { toParticipantCase } from '../services/case-sets';
import { assignCondition, conditionOf, conditionView } from '../services/conditions';
import { AccuracyPoolError, alphaOfItem, ensureMainCaseSet, mainSetItem, MainPoolError, type MainStartBypass } from '../services/main-case-sets';
import { pinActiveAiModel } from '../services/model-store';
import { mainResponseSummary, storeIntegratedResponse } from '../services/main-responses';
import { countPreResponses } from '../services/pre-experiment';
import { casesInProgress, keepTrialStep } from '../services/trial-progress';
import { requireSession } from '../services/sessions';
import { outcomeFeedback, recordFeedbackViewed } from '../services/outcome-feedback';
import { validate, validateOptionalJson } from '../validate';
import { debugToolsAllowed } from '../environment';

export const mainExperimentRoutes = new Hono<AppEnv>()
  .post('/main/start', validate('query', mainStartQuerySchema), validateOptionalJson(mainStartBodySchema), async (c) => {
    // The spec's query form and a JSON body carry the same fields; the body wins where both do.
    const query = c.req.valid('query');
    const body = c.req.valid('json');
    const sessionId = body.session_id ?? query.session_id ?? body.participant_id ?? query.participant_id;
    if (!sessionId) throw new AppError(400, 'validation_failed', [{ msg: 'session_id is required', loc: ['session_id'] }]);
    const numCases = body.num_cases ?? query.num_cases ?? studyConfig.mainExperiment.numCases;
    const bypass: MainStartBypass = (body.debug ?? query.debug) ? 'debug' : (body.tutorial ?? query.tutorial) ? 'tutorial' : null;
    if (bypass && !(await debugToolsAllowed(c))) {
      throw new AppError(403, 'debug_disabled', 'Debug and tutorial modes are available to administrators only in production');
    }

    const session = await requireSession(c.var.db, sessionId);
    requireWriteAllowed(session, 'main_start');
    // Only the pre-experiment count is needed here; the stored main cases are read below.
    const preCount = bypass ? 0 : await countPreResponses(c.var.db, session.sessionId);
    if (!bypass && preCount < studyConfig.preExperiment.numCases) {
      throw conflict('pre_experiment_incomplete', `The pre-experiment has ${preCount} of ${studyConfig.preExperiment.numCases} answers`);
    }
    // The condition first: under quotas a start with no open cell is refused before anything else is written.
    const condition = await assignCondition(c.var.db, session, new Date().toISOString());
    let outcome;
    try {
      // The AI the participant will see is fixed now: a retrain later does not change it for them.
      await pinActiveAiModel(c.var.db, session.sessionId, session.datasetType);
      // Nor is a main set handed out before the participant's own model is fitted on the whole
      // pre-experiment (the page's own call to train may never have come: a closed tab, another device).
      if (!bypass) await ensureUserModel(c.var.db, c.env.MODELS, session, new Date());
      outcome = await ensureMainCaseSet(c.var.db, c.env.MODELS, session, condition, new Date().toISOString(), bypass);
    } catch (err) {
      if (err instanceof AccuracyPoolError) throw new AppError(503, 'main_pool_unavailable', `The main-experiment cases cannot give condition ${condition.name}'s AI accuracy: ${err.message}`);
      if (err instanceof MainPoolError) throw new AppError(503, 'main_pool_unavailable', 'The main-experiment cases are not set up for this dataset');
      throw err;
    }
    const [stored, inProgress] = await Promise.all([mainResponseSummary(c.var.db, session.sessionId), casesInProgress(c.var.db, { sessionId: session.sessionId, condition: condition.name }, new Date())]);
    const result: z.infer<typeof mainStartResponseSchema> = {
      success: true,
      session_id: session.sessionId,
      dataset_type: session.datasetType,
      answered_case_ids: stored.caseIds,
      case_set: outcome.set.slice(0, numCases).map((item) => ({ ...toParticipantCase(item.row, item.position + 1), alignment_alpha: alphaOfItem(condition, item.storedAlpha) })),
      condition: conditionView(condition),
      is_resumed: !outcome.created,
      completed_cases: stored.completed,
      total_cases: outcome.set.length,
      cases_in_progress: inProgress,
    };
    return c.json(result, outcome.created ? 201 : 200);
  })
  // A stored alpha answers 'stored' and an unknown session 'schedule', so the answer tells a
  // started participant from an unknown ID: it counts as an ID lookup.
  .get('/alignment-alpha/:sessionId/:caseIndex/:total', validate('param', alignmentAlphaParamSchema), async (c) => {
    const { sessionId, caseIndex, total } = c.req.valid('param');
    const answer = (alpha: number, source: z.infer<typeof alignmentAlphaResponseSchema>['source']) =>
      c.json({ session_id: sessionId, case_index: caseIndex, total, alpha, source } satisfies z.infer<typeof alignmentAlphaResponseSchema>);
    const stored = await mainSetItem(c.var.db, sessionId, { position: caseIndex });
    if (stored) {
      const session = await requireSession(c.var.db, sessionId);
      const alpha = alphaOfItem(conditionOf(session), stored.storedAlpha);
      if (alpha === null) throw conflict('no_explanation_in_condition', `Participant ${sessionId} is in a condition that shows no explanation`);
      return answer(alpha, 'stored');
    }
    // Nothing stored: the same answer for any ID, known or not, counted as a lookup that found nothing.
    c.set('idMiss', true);
    const scheduled = alphaSchedule(sessionId, total)?.[caseIndex];
    return scheduled === undefined ? answer(studyConfig.mainExperiment.fallbackAlpha, 'fallback') : answer(scheduled, 'schedule');
  })
  .post('/main/integrated-response', answerWriteLimit, validate('json', integratedResponseBodySchema), async (c) => {
    const body = c.req.valid('json');
    const outcome = await storeIntegratedResponse(c.var.db, body.session_id, body, new Date().toISOString());
    const result: z.infer<typeof integratedResponseResultSchema> = {
      success: true,
      duplicate: outcome.duplicate,
      message: outcome.duplicate ? 'Case already stored' : 'Case stored',
      completed_cases: outcome.completed,
      complete: outcome.complete,
    };
    return c.json(result, outcome.duplicate ? 200 : 201);
  })
  .post('/main/trial-progress', answerWriteLimit, validate('json', trialProgressBodySchema), async (c) => {
    const kept = await keepTrialStep(c.var.db, c.req.valid('json'), new Date());
    return c.json({ success: true, kept } satisfies z.infer<typeof trialProgressResultSchema>);
  })
  .post('/main/understanding-test', attemptWriteLimit, validate('json', understandingAttemptBodySchema), async (c) => {
    const body = c.req.valid('json');
    const session = await requireSession(c.var.db, body.session_id);
    const outcome = await storeUnderstandingAttempt(c.var.db, session, body, new Date().toISOString());
    const result: z.infer<typeof understandingAttemptResultSchema> = {
      success: true,
      duplicate: outcome.duplicate,
      attempt_number: outcome.attemptNumber,
      correct: outcome.correct,
      total: outcome.total,
      score_percent: outcome.total ? Math.round((outcome.correct / outcome.total) * 100) : 0,
      passed: outcome.passed,
      screened_out: outcome.screenedOut,
    };
    return c.json(result, outcome.duplicate ? 200 : 201);
  })
  // A stored case's outcome feedback (a condition's outcomeFeedback), and how long it was viewed.
  .get('/main/feedback', validate('query', outcomeFeedbackQuerySchema), async (c) => {
    const query = c.req.valid('query');
    const session = await requireSession(c.var.db, query.session_id);
    c.header('Cache-Control', 'no-store');
    return c.json(await outcomeFeedback(c.var.db, session, query.case_id, new Date().toISOString()));
  })
  .post('/main/feedback-viewed', answerWriteLimit, validate('json', feedbackViewedBodySchema), async (c) => {
    const body = c.req.valid('json');
    const session = await requireSession(c.var.db, body.session_id);
    return c.json(await recordFeedbackViewed(c.var.db, session, body, new Date()));
  })
  .get('/main/summary/:sessionId', validate('param', sessionParamSchema), async (c) => {
    const session = await requireSession(c.var.db, c.req.valid('param').sessionId);
    const summary = await mainResponseSummary(c.var.db, session.sessionId);
    const total = studyConfig.mainExperiment.numCases;
    return c.json({
      success: true,
      session_id: session.sessionId,
      completed_cases: summary.completed,
      total_cases: total,
      complete: summary.completed >= total,
      judgement_changes: summary.judgementChanges,
      final_agrees_with_ai: summary.finalAgreesWithAi,
      mean_ratings: summary.meanRatings,
    } satisfies z.infer<typeof mainSummaryResponseSchema>);
  });
