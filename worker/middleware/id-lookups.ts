/**
 * Every participant call that can tell a known participant ID from an unknown one, in one table,
 * and the one limit they share per client address (`ID_LOOKUP_LIMITER`, 120 a minute in
 * wrangler.toml): an ID guesser meets it whichever of them it uses, and once over it the address
 * learns nothing more until the minute ends. What counts is what a guess mostly gets, a miss: a
 * refusal (an unknown ID, a case outside the session's set), or an answer the route marks as one
 * (`idMiss`: an alpha with nothing stored). A call that finds the caller's own session is their
 * flow and costs nothing, so a lab of participants behind one address is not throttled by its own
 * answers. Opening a session is the exception: for a new ID its answer is a creation, so every
 * call counts, before it writes anything. Each route's other limits (answers refused,
 * rows created) stay its own. `test/worker/id-lookups.test.ts` walks every route here past the
 * limit, and fails on a participant route that is in neither this table nor its list of routes
 * that take no ID.
 */
import { routePath } from 'hono/route';
import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { limitPerClient, limitRefusalsPerClient } from './rate-limit';

/**
 * How a route's calls count: `misses`, refusals and marked misses, and an address over the limit
 * is turned away before any work; `misses_own_case_free`, the same except that a call about a case
 * of the session's own main set (or its 409 about such a case) is never counted or turned away
 * (explanations: a lab's participants keep theirs whatever a guesser behind their address did);
 * `every_call`, every call, counted before the route runs (a creation must not be written and
 * then refused).
 */
type Counting = 'misses' | 'misses_own_case_free' | 'every_call';

export const ID_LOOKUPS: Record<string, Counting> = {
  'POST /api/experiments/sessions': 'every_call',
  'POST /api/experiments/start': 'misses',
  'POST /api/experiments/withdraw': 'misses',
  'GET /api/experiments/sessions/:sessionId': 'misses',
  'GET /api/experiments/sessions/:sessionId/prolific': 'misses',
  'GET /api/experiments/sessions/:sessionId/details': 'misses',
  'GET /api/experiments/sessions/:sessionId/dataset-type': 'misses',
  'POST /api/experiments/check-existing': 'misses',
  'POST /api/experiments/resume': 'misses',
  'POST /api/experiments/dataset-assignment/explicit': 'misses',
  'GET /api/experiments/case-sets/fixed': 'misses',
  'POST /api/consent/submit': 'misses',
  'POST /api/experiments/pre-experiment/responses': 'misses',
  'POST /api/experiments/pre-experiment/responses/batch': 'misses',
  'POST /api/user-model/train': 'misses',
  'POST /api/experiments/main/start': 'misses',
  'GET /api/experiments/alignment-alpha/:sessionId/:caseIndex/:total': 'misses',
  'POST /api/experiments/main/predict': 'misses',
  'POST /api/experiments/main/trial-progress': 'misses',
  'POST /api/experiments/main/integrated-response': 'misses',
  'POST /api/experiments/main/understanding-test': 'misses',
  'GET /api/experiments/main/summary/:sessionId': 'misses',
  'GET /api/experiments/main/feedback': 'misses',
  'POST /api/experiments/main/feedback-viewed': 'misses',
  'POST /api/human-aligned-explanation': 'misses_own_case_free',
  'GET /api/experiments/explanations/:caseId': 'misses_own_case_free',
  'POST /api/post-survey': 'misses',
  'GET /api/post-survey/:sessionId': 'misses',
  'GET /api/post-survey/check/:sessionId': 'misses',
  'GET /api/post-survey/completion/:sessionId': 'misses',
  'GET /api/post-survey/example/:sessionId': 'misses',
};

const LIMITERS = {
  misses: limitRefusalsPerClient('ID_LOOKUP_LIMITER'),
  misses_own_case_free: limitRefusalsPerClient('ID_LOOKUP_LIMITER', 'own_case_set_free'),
  every_call: limitPerClient('ID_LOOKUP_LIMITER'),
} as const;

/** The key of the route a request matched in ID_LOOKUPS ("GET /api/experiments/sessions/:sessionId"). */
export const lookupKey = (method: string, path: string) => `${method} ${path.length > 1 ? path.replace(/\/+$/, '') : path}`;

/** Applies the shared lookup limit to every call of a route in ID_LOOKUPS; other calls pass untouched. */
export const limitIdLookups = createMiddleware<AppEnv>(async (c, next) => {
  const counting = ID_LOOKUPS[lookupKey(c.req.method, routePath(c, -1))];
  if (!counting) return next();
  return LIMITERS[counting](c, next);
});
