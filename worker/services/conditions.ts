/**
 * Between-subject conditions (the study configuration's `conditions`): which one a session runs
 * under, and drawing it when the main experiment starts. The draw is balanced within the
 * session's dataset by each condition's share, counting every session that has one (finished or
 * not, as dataset assignment counts) among the participants the research figures count
 * (synthetic, `test_` and bypass sessions take no slot: `setAsideParticipants`), and is made and
 * stored by one SQL statement, so concurrent starts cannot all take the same least-used condition. Ties go in an order seeded by the session,
 * and a stored condition never changes: a resumed or repeated start keeps it.
 */
import { eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { setAsideParticipants } from '../db/queries/analytics';
import { openCell } from '../db/queries/sessions';
import { sessions } from '../db/schema';
import { AppError } from '../errors';
import type { Audience } from '../schemas/post-survey';
import { adviceWaitMsOf, advisesOnRequest, answerPlan, givesOutcomeFeedback, incentiveSchemeOf, RATING_ITEMS, shapeOf, timeLimitOf, unadvisedPlan, type RatingItem } from '../schemas/condition-plan';
import { SPEC_DESIGN, studyConfig, type Condition, type DatasetType } from '../schemas/study';
import { seededShuffle, seedOf } from './case-sets';
import { quotaFor, recruitmentState, studyFull } from './recruitment';

export const conditionNamed = (name: string): Condition | undefined => studyConfig.conditions.find((c) => c.name === name);

/** The condition a session runs under (null: it started before conditions existed, under the spec's design). */
export function conditionOf(session: { sessionId: string; condition: string | null }): Condition {
  if (session.condition === null) return conditionNamed(SPEC_DESIGN.name) ?? SPEC_DESIGN;
  const condition = conditionNamed(session.condition);
  if (!condition) {
    throw new AppError(409, 'condition_unknown', `Session ${session.sessionId} runs under condition ${session.condition}, which the study configuration no longer has; restore it to serve the session`);
  }
  return condition;
}

/** A condition in words, for the codebook. */
export function describeCondition(condition: Condition): string {
  if (condition.shows === 'none') return `no AI; ${condition.judgements === 2 ? 'judges each case twice' : 'judges each case once'}`;
  const when = condition.aiTiming === 'after_initial' ? 'after the initial judgement' : 'with the case (one judgement)';
  const confidence = condition.aiConfidence ? ' with its confidence' : '';
  const accuracy = condition.aiAccuracy === undefined ? '' : `; the AI right on ${Number((condition.aiAccuracy * 100).toFixed(6))} % of the main cases`;
  if (condition.shows === 'ai_prediction') return `the AI's prediction${confidence || ' alone'}, ${when}${accuracy}`;
  return `the AI's prediction${confidence} and explanation (alphas ${alphaLevelsOf(condition)!.join(', ')}), ${when}${accuracy}`;
}

/** What the condition showed a participant, as the post-survey asks about it. */
export const audienceOf = (condition: Condition): Audience => ({
  ai: condition.shows !== 'none',
  explanations: condition.shows === 'explanation',
  adjusted: (alphaLevelsOf(condition) ?? []).some((alpha) => alpha < 1),
});

/** What a participant's page needs of a condition to follow it (`answerPlan` of its shape). */
export const conditionView = (condition: Condition) => {
  const { shows, aiTiming, judgements } = shapeOf(condition);
  return {
    name: condition.name,
    shows,
    ai_timing: aiTiming,
    judgements,
    outcome_feedback: givesOutcomeFeedback(condition),
    advice_on_request: advisesOnRequest(condition),
    advice_wait_seconds: adviceWaitMsOf(condition) / 1000 || null,
    time_limit: timeLimitView(condition),
    incentive: incentiveSchemeOf(condition),
  };
};

/** The alphas an explanation condition spreads over a session's cases; null when the condition shows no explanation. */
export const alphaLevelsOf = (condition: Condition): readonly number[] | null =>
  condition.shows === 'explanation' ? (condition.alphaLevels ?? studyConfig.mainExperiment.alphaLevels) : null;

/**
 * Draws and stores the session's condition unless it has one; returns the stored one. Under
 * quotas a person's session (one admitted before they were set, or by a path that fixed no cell)
 * is drawn into an open cell exactly as the admission draws a newcomer, in the same statement
 * that stores it, and refused (409 `study_full`, nothing stored) when every cell is at its target;
 * synthetic participants hold no place and are drawn by share.
 */
export async function assignCondition(db: Db, session: { sessionId: string; datasetType: DatasetType; condition: string | null; origin?: string }, now: string): Promise<Condition> {
  if (session.condition !== null) return conditionOf(session);
  const quota = session.origin === 'participant' ? quotaFor(await recruitmentState(db), session.datasetType, now) : null;
  if (quota) {
    await db.run(sql`UPDATE sessions SET condition = ${openCell(quota, session.sessionId)} WHERE session_id = ${session.sessionId} AND condition IS NULL`);
    const stored = await db.select({ condition: sessions.condition }).from(sessions).where(eq(sessions.sessionId, session.sessionId)).get();
    if (!stored?.condition) throw studyFull(session.datasetType);
    return conditionOf({ sessionId: session.sessionId, condition: stored.condition });
  }
  const order = seededShuffle(
    studyConfig.conditions.map((c) => c.name),
    seedOf(`${session.sessionId}/condition`),
  );
  const options = JSON.stringify(order.map((name, rank) => ({ name, rank, share: conditionNamed(name)!.share })));
  await db.run(sql`
    UPDATE sessions SET condition = (
      SELECT json_extract(o.value, '$.name')
      FROM json_each(${options}) AS o
      LEFT JOIN (
        SELECT condition, count(*) AS n FROM sessions
        WHERE dataset_type = ${session.datasetType} AND condition IS NOT NULL
          AND participant_id NOT IN (${setAsideParticipants(db)})
        GROUP BY condition
      ) AS taken ON taken.condition = json_extract(o.value, '$.name')
      ORDER BY coalesce(taken.n, 0) * 1.0 / json_extract(o.value, '$.share') ASC, json_extract(o.value, '$.rank') ASC
      LIMIT 1
    )
    WHERE session_id = ${session.sessionId} AND condition IS NULL`);
  const stored = await db.select({ condition: sessions.condition }).from(sessions).where(eq(sessions.sessionId, session.sessionId)).get();
  return conditionOf({ sessionId: session.sessionId, condition: stored?.condition ?? null });
}

type AnswerParts = {
  initial_prediction?: number | null;
  initial_confidence?: number | null;
  initial_response_time_ms?: number | null;
  ai_prediction?: number | null;
  ai_feature_importance?: readonly unknown[];
  shown_feature_importance?: readonly unknown[];
} & Partial<Record<RatingItem, number | null>>;

const given = (v: unknown) => v !== undefined && v !== null;

/**
 * Why a case's answer does not fit the condition, one line per part; empty when it fits. `advised`:
 * whether the AI was served for the case (a condition with advice on request may store a case
 * without it, and then asks nothing about the AI).
 */
export function answerMisfits(condition: Condition, body: AnswerParts, advised = true): string[] {
  const planned = answerPlan(shapeOf(condition));
  const expected = advised ? planned : unadvisedPlan(planned);
  const problems: string[] = [];
  const initial = [body.initial_prediction, body.initial_confidence, body.initial_response_time_ms];
  if (expected.initial && !initial.every(given)) problems.push('the initial judgement (initial_prediction, initial_confidence, initial_response_time_ms) is required');
  if (!expected.initial && initial.some(given)) problems.push('there is no initial judgement in this condition');
  if (expected.ai !== 'none' && !given(body.ai_prediction)) problems.push("the AI's prediction shown (ai_prediction) is required");
  if (expected.ai === 'none' && given(body.ai_prediction)) problems.push('this condition shows no AI prediction');
  const bars = (body.ai_feature_importance?.length ?? 0) + (body.shown_feature_importance?.length ?? 0);
  if (expected.ai === 'explanation' && bars === 0) problems.push('the explanation shown (ai_feature_importance, shown_feature_importance) is required');
  if (expected.ai !== 'explanation' && bars > 0) problems.push('this condition shows no explanation');
  for (const item of RATING_ITEMS) {
    const asked = expected.ratings.includes(item);
    if (asked && !given(body[item])) problems.push(`${item} is required`);
    if (!asked && given(body[item])) problems.push(`${item} is not asked in this condition`);
  }
  return problems;
}

/** A condition's time limit as the pages read it: seconds per judgement step and what happens when they run out. */
function timeLimitView(condition: Condition) {
  const limit = timeLimitOf(condition);
  return limit ? { seconds: limit.ms / 1000, on_timeout: limit.onTimeout } : null;
}
