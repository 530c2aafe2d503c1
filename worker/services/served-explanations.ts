/**
 * The record of what the Worker served of the AI for each case of a session's main set, and the
 * one rule a stored trial's AI side follows: it is copied from a serve of that session and case
 * (its bars are read from the serve, not copied: worker/db/trial-record.ts), and whatever the page says it showed must be that serve, field by field, or the trial is
 * refused with a 400 naming each field that differs (nothing stored). A field the page leaves
 * out is not a claim and is taken from the serve.
 */
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { featureLists, servedExplanations } from '../db/schema';
import { serveBarsToText } from '../db/feature-bars';
import { barsOfServe, serveColumns } from '../db/trial-record';
import { AppError } from '../errors';
import type { ExplanationResponse, IntegratedResponseBody } from '../schemas/main-experiment';
import { showsAiBaseline } from '../schemas/condition-plan';
import { studyConfig } from '../schemas/study';

export type ServedExplanation = typeof servedExplanations.$inferSelect;

/**
 * Why the AI's own bars were served instead of the alpha mix: the state of the participant's model
 * alone. (`requested`, the page asking for the AI-only explanation, is found on serves recorded
 * before the server decided every serve's kind itself; none is recorded any more.)
 */
export type AiOnlyReason = 'no_user_model' | 'user_model_failed' | 'user_model_uninformative';

/**
 * Records one serve and returns its id. The same serve again (same kind, models and alpha: a
 * reload, a retried request) is counted on the row it first made, so a page asking again and
 * again adds no rows; anything else served for the case is a row of its own.
 */
export async function recordServe(
  db: Db,
  input: { shown: ExplanationResponse; aiProbability: number; aiBaseProbability: number; aiOnlyReason: AiOnlyReason | null; now: string },
): Promise<number> {
  const { shown, now } = input;
  // Packed bars name their features once in `feature_lists` (kept there the first time) and keep its id.
  const bars = serveBarsToText({ ai: shown.ai_feature_importance, user: shown.user_feature_importance, shown: shown.shown_feature_importance, alpha: shown.alignment_alpha });
  const names = sql`json_extract(${bars}, '$.f')`;
  const packed = sql`json_type(${bars}, '$.f') = 'array'`;
  const [, [row]] = await db.batch([
    db
      .insert(featureLists)
      .select(sql`select null as id, ${names} as names where ${packed}`)
      .onConflictDoNothing(),
    db
      .insert(servedExplanations)
      .values({
        sessionId: shown.session_id,
        caseId: shown.case_id,
        kind: shown.explanation_kind,
        aiOnlyReason: input.aiOnlyReason,
        aiModelIdentifier: shown.model_identifier,
        userModelIdentifier: shown.user_model_identifier,
        alignmentAlpha: shown.alignment_alpha,
        aiPrediction: shown.prediction,
        aiProbability: input.aiProbability,
        aiBaseProbability: input.aiBaseProbability,
        userModelPrediction: shown.user_model_prediction,
        userModelProbability: shown.user_model_probability,
        aiConfidenceShown: shown.ai_confidence !== null,
        statedAccuracy: shown.stated_accuracy,
        bars: sql`case when ${packed} then json_set(${bars}, '$.f', (select ${featureLists.id} from ${featureLists} where ${featureLists.names} = ${names})) else ${bars} end`,
        firstServedAt: now,
        lastServedAt: now,
      })
      .onConflictDoUpdate({
        target: [servedExplanations.sessionId, servedExplanations.caseId, servedExplanations.serveKey],
        set: { serveCount: sql`${servedExplanations.serveCount} + 1`, lastServedAt: now },
      })
      .returning({ id: servedExplanations.id }),
  ]);
  return row!.id;
}

/**
 * The serve a trial names (`served_explanation_id`), or, when it names none, the one last served
 * for the case; only a serve of this session and case is ever found.
 */
export const servedFor = (db: Db, sessionId: string, caseId: string, servedId: number | null | undefined) =>
  db
    .select(serveColumns)
    .from(servedExplanations)
    .where(
      and(
        eq(servedExplanations.sessionId, sessionId),
        eq(servedExplanations.caseId, caseId),
        servedId === null || servedId === undefined ? undefined : eq(servedExplanations.id, servedId),
      ),
    )
    .orderBy(desc(servedExplanations.lastServedAt), desc(servedExplanations.id))
    .limit(1);

/** The bars as a comparable text: each feature's four numbers, in order (key order and spacing do not count). */
const barsText = (bars: readonly unknown[]) =>
  JSON.stringify((bars as { feature: string; importance: number; abs_importance: number; raw_shap: number }[]).map((b) => [b.feature, b.importance, b.abs_importance, b.raw_shap]));

/** Whether the page showed the AI's base rate and probability with this serve's bars (the page's own rule). */
export const baselineShown = (s: ServedExplanation) => showsAiBaseline({ kind: s.kind, alpha: s.alignmentAlpha }, studyConfig.mainExperiment.showAiBaseline);

/** Each field of a trial that speaks about the AI side, and the serve's value it must equal. */
const CLAIMS: { [K in keyof IntegratedResponseBody]?: (s: ServedExplanation) => unknown } = {
  ai_prediction: (s) => s.aiPrediction,
  ai_model_prediction: (s) => s.aiPrediction,
  ai_model_identifier: (s) => s.aiModelIdentifier,
  explanation_kind: (s) => s.kind,
  alignment_alpha: (s) => s.alignmentAlpha,
  // Served only where probabilities are shown; the record keeps them in any case.
  ai_probability: (s) => (s.kind === 'prediction_only' ? null : s.aiProbability),
  user_model_identifier: (s) => s.userModelIdentifier,
  user_model_prediction: (s) => s.userModelPrediction,
  user_model_probability: (s) => s.userModelProbability,
  ai_feature_importance: (s) => barsOfServe(s).ai,
  user_feature_importance: (s) => barsOfServe(s).user,
  shown_feature_importance: (s) => barsOfServe(s).shown,
  ai_baseline_shown: baselineShown,
  ai_confidence_shown: (s) => s.aiConfidenceShown,
  ai_accuracy_stated: (s) => s.statedAccuracy,
};

/** The names of the trial's fields that say something other than the serve did (a left-out field says nothing). */
export function claimsDiffering(body: IntegratedResponseBody, served: ServedExplanation): string[] {
  const differing: string[] = [];
  for (const [field, value] of Object.entries(CLAIMS) as [keyof IntegratedResponseBody, (s: ServedExplanation) => unknown][]) {
    const claimed = body[field];
    if (claimed === undefined) continue;
    const truth = value(served);
    const same = Array.isArray(truth) ? Array.isArray(claimed) && barsText(claimed) === barsText(truth) : claimed === truth;
    // A probability or user-model field sent as null where the serve showed none is the same silence.
    if (!same && !(claimed === null && (truth === null || field === 'ai_probability'))) differing.push(field);
  }
  return differing;
}

/** 400 naming each field that differs from what the Worker served. */
export const claimsRefused = (served: ServedExplanation, fields: string[]) =>
  new AppError(
    400,
    'ai_record_mismatch',
    fields.map((field) => ({ msg: `${field} differs from what the Worker served for this case (serve ${served.id})`, loc: ['body', field] })),
  );
