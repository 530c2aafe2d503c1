/**
 * Stores the post-survey: one per session (UNIQUE session_id; a second submit is the spec's 409,
 * which the client counts as done), checked field by field against the one definition, never
 * trusting the browser. The session is then complete.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import type { SessionRow } from '../db/queries/sessions';
import { cases, mainExperimentResponses, postSurveys, preExperimentResponses, servedExplanations, sessions } from '../db/schema';
import { caseShown, servedBars, trialBars, trialServe } from '../db/trial-record';
import { AppError, conflict } from '../errors';
import { answeredQuestions, checkSection, issueMessage, postSurveyFor, scorePostSurvey, type Audience } from '../schemas/post-survey';
import { checkedPostSurvey, type PostSurveyBody } from '../schemas/post-survey-schemas';
import { audienceOf, conditionOf } from './conditions';
import { requireWriteAllowed } from '../db/session-lifecycle';
import { newVerificationCode } from '../study-codes';
import { incentiveOf } from '../schemas/condition-plan';
import type { Condition } from '../schemas/study';

/** Every broken rule of a submission as `{msg, loc}` items (English texts: the SPA shows its own), for the survey the participant's condition asks. */
export function postSurveyIssues(body: PostSurveyBody, audience: Audience) {
  const items: { msg: string; loc: string[] }[] = [];
  for (const section of postSurveyFor(audience, checkedPostSurvey).sections) {
    const labels = new Map(answeredQuestions(section).map((q) => [q.name, q.label.en]));
    for (const [field, issue] of Object.entries(checkSection(section, body[section.id]))) {
      items.push({ msg: issueMessage(issue, labels.get(field) ?? field, 'en'), loc: [section.id, field] });
    }
  }
  return items;
}

export async function storePostSurvey(db: Db, session: SessionRow, body: PostSurveyBody, now: string) {
  requireWriteAllowed(session, 'post_survey');
  const issues = postSurveyIssues(body, audienceOf(conditionOf(session)));
  if (issues.length > 0) throw new AppError(400, 'validation_failed', issues);

  const rating = body.cognition.experiment_rating;
  const feedback = body.cognition.overall_feedback;
  // One batch: the survey and the session's completion land together or not at all, so a Worker
  // stopped between them cannot leave a stored survey whose session never completes.
  const [inserted] = await db.batch([
    db
      .insert(postSurveys)
      .values({
        participantId: session.userId,
        sessionId: session.sessionId,
        demographics: body.demographics,
        benevolent: body.benevolent,
        bigfive: body.bigfive,
        locus: body.locus,
        cognition: body.cognition,
        experimentRating: typeof rating === 'number' ? rating : null,
        overallFeedback: typeof feedback === 'string' && feedback.trim() ? feedback.trim() : null,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: postSurveys.id }),
    db
      .update(sessions)
      .set({ postSurveyCompletedAt: now, currentPhase: 'completed', updatedAt: now, completionVerificationCode: newVerificationCode(), ...bonusColumns(conditionOf(session), now) })
      .where(sql`${sessions.sessionId} = ${session.sessionId} and ${sessions.postSurveyCompletedAt} is null`),
  ]);
  if (inserted.length === 0) throw conflict('already_answered', 'This session has already answered the post-survey');
  return { scores: scorePostSurvey(body) };
}

/**
 * The condition's incentive worked out in the statement that completes the session, from the
 * trials the Worker stored (never from the page): the correct final judgements of the main
 * experiment, the correct pre-experiment judgements where they pay, and the bonus they make, at
 * most the cap. Nothing without an incentive.
 */
function bonusColumns(condition: Condition, now: string) {
  const incentive = incentiveOf(condition);
  if (!incentive) return {};
  // The session named in full: inside a subquery a bare column name would be the subquery's own.
  const correctFinal = sql<number>`(select count(*) from ${mainExperimentResponses} r where r.session_id = sessions.session_id and r.completed_at is not null and r.final_prediction = r.ground_truth)`;
  const correctPre = sql<number>`(select count(*) from ${preExperimentResponses} p where p.session_id = sessions.session_id and p.prediction = p.ground_truth)`;
  // The pre-experiment's correct judgements are counted only where they pay.
  const paysPre = incentive.perCorrectPreCents > 0;
  return {
    bonusCurrency: incentive.currency,
    bonusBaseCents: incentive.baseCents,
    bonusCorrectFinal: correctFinal,
    bonusCorrectPre: paysPre ? correctPre : null,
    bonusCents: sql<number>`min(${incentive.capCents}, ${correctFinal} * ${incentive.perCorrectCents}${paysPre ? sql` + ${correctPre} * ${incentive.perCorrectPreCents}` : sql``})`,
    bonusComputedAt: now,
  };
}

/** A finished participant's payment as the completion page shows it (amounts in the currency), as the Worker worked it out; null without an incentive. */
export async function paymentOf(db: Db, sessionId: string) {
  const row = await db
    .select({
      currency: sessions.bonusCurrency,
      base: sessions.bonusBaseCents,
      bonus: sessions.bonusCents,
      correctFinal: sessions.bonusCorrectFinal,
      correctPre: sessions.bonusCorrectPre,
      paidAt: sessions.bonusPaidAt,
    })
    .from(sessions)
    .where(eq(sessions.sessionId, sessionId))
    .get();
  if (!row || row.currency === null || row.base === null || row.bonus === null) return null;
  return {
    currency: row.currency,
    base: row.base / 100,
    bonus: row.bonus / 100,
    total: (row.base + row.bonus) / 100,
    correct_final: row.correctFinal ?? 0,
    correct_pre: row.correctPre ?? 0,
    paid: row.paidAt !== null,
  };
}

export async function findPostSurvey(db: Db, sessionId: string) {
  const row = await db.select().from(postSurveys).where(eq(postSurveys.sessionId, sessionId)).get();
  if (!row) return null;
  return { ...row, scores: scorePostSurvey(row) };
}

/**
 * The benevolent-deception example: one of the participant's own main-experiment cases whose
 * shown bars were a mix, the one with the lowest alpha (the most adjusted), with the AI's own
 * bars beside what was shown. Null when no case was adjusted (no user model, or no answers).
 */
export async function adjustmentExample(db: Db, sessionId: string) {
  const row = await db
    .select({
      caseNumber: mainExperimentResponses.caseNumber,
      datasetType: mainExperimentResponses.datasetType,
      alpha: mainExperimentResponses.alignmentAlpha,
      own: {
        aiFeatureImportance: mainExperimentResponses.aiFeatureImportance,
        userFeatureImportance: mainExperimentResponses.userFeatureImportance,
        shownFeatureImportance: mainExperimentResponses.shownFeatureImportance,
      },
      served: servedBars,
      features: caseShown(mainExperimentResponses),
      aiPrediction: mainExperimentResponses.aiPrediction,
    })
    .from(mainExperimentResponses)
    .leftJoin(cases, eq(cases.caseId, mainExperimentResponses.caseId))
    .leftJoin(servedExplanations, trialServe)
    .where(and(eq(mainExperimentResponses.sessionId, sessionId), eq(mainExperimentResponses.explanationKind, 'human_aligned'), sql`${mainExperimentResponses.alignmentAlpha} < 1`))
    .orderBy(asc(mainExperimentResponses.alignmentAlpha), asc(mainExperimentResponses.caseNumber))
    .get();
  if (!row) return null;
  const { own, served, ...rest } = row;
  const { ai, shown } = trialBars(own, served);
  return { ...rest, ai, shown };
}

/** The first time the completion page was given the condition's debrief; a later fetch keeps it. */
export async function recordDebriefServed(db: Db, sessionId: string, now: string) {
  await db.update(sessions).set({ debriefServedAt: now }).where(and(eq(sessions.sessionId, sessionId), isNull(sessions.debriefServedAt)));
}
