/**
 * SQL aggregates behind the research analytics: the main experiment's trials summed per
 * participant and what they showed (every reliance metric is a ratio of these sums), and the
 * per-participant signals the data-quality flags read. Each query returns at most one row per
 * participant (trials: per participant × what was shown), never the trials themselves.
 */
import { and, asc, between, count, eq, gt, inArray, isNotNull, max, min, notInArray, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { SPEC_DESIGN, studyConfig } from '../../schemas/study';
import { showsAiExplanation } from '../../schemas/condition-plan';
import type { Db } from '../client';
import { mainExperimentResponses as main, participantSignals, participants, postSurveys, sessions, understandingTestAttempts } from '../schema';

/**
 * A judgement's place on the probability scale of the positive class (measures.ts, weight of
 * advice): its class at the confidence read as a probability, 50 % at the lowest level to 100 % at
 * the highest in equal steps (1…5: 0.5, 0.625, 0.75, 0.875, 1), mirrored for the negative class.
 */
const { min: CONFIDENCE_MIN, max: CONFIDENCE_MAX } = studyConfig.confidence;
const CONFIDENCE_STEP = sql.raw(String(0.5 / (CONFIDENCE_MAX - CONFIDENCE_MIN)));
const placed = (prediction: AnyColumn, confidence: AnyColumn) =>
  sql`(case when ${prediction} = 1 then 0.5 + (${confidence} - ${CONFIDENCE_MIN}) * ${CONFIDENCE_STEP} else 0.5 - (${confidence} - ${CONFIDENCE_MIN}) * ${CONFIDENCE_STEP} end)`;
const qi = placed(main.initialPrediction, main.initialConfidence);
const qf = placed(main.finalPrediction, main.finalConfidence);
/**
 * The AI's advice on the same scale: its probability where the panel showed it (with the AI's own
 * bars and base rate, or as its confidence), else its class at certainty (the prediction alone says no more).
 */
const qa = sql`(case when (${main.aiBaselineShown} = 1 or ${main.aiConfidenceShown} = 1) and ${main.aiProbability} is not null then ${main.aiProbability} else ${main.aiPrediction} * 1.0 end)`;
const n = (condition: ReturnType<typeof sql>) => sql<number>`coalesce(sum(case when ${condition} then 1 else 0 end), 0)`;

/**
 * Completed trials with a final judgement. Under a condition without the AI, or without an initial
 * judgement, a trial has no AI prediction or no initial one: each metric counts only the trials it
 * is defined on (its denominator says which).
 */
const usableTrial = and(isNotNull(main.completedAt), isNotNull(main.finalPrediction), isNotNull(main.finalConfidence));
const withInitial = sql`(${main.initialPrediction} is not null and ${main.initialConfidence} is not null)`;
const withAi = sql`${main.aiPrediction} is not null`;

/**
 * Participants the research figures leave out unless asked to include them: synthetic ones (made
 * by the registration tools, or with a `test_` ID) and those whose main experiment started through
 * a debug or tutorial bypass, so without the pre-experiment the design requires.
 */
export const setAsideParticipants = (db: Db) =>
  db
    .select({ id: participants.id })
    .from(participants)
    .leftJoin(sessions, eq(sessions.participantId, participants.id))
    .where(or(eq(participants.origin, 'admin_synthetic'), sql`substr(${participants.participantCode}, 1, 5) = 'test_'`, isNotNull(sessions.mainStartBypass)));

/** Participants who finished the study: their post-survey is stored and their completion code issued. */
export const completedParticipants = (db: Db) => db.select({ id: sessions.participantId }).from(sessions).where(isNotNull(sessions.postSurveyCompletedAt));

/**
 * Which participants a figure counts. By default every participant with data but the set-aside
 * ones, finished or not (a participant who left after 30 cases counts with those 30 trials);
 * `includeSynthetic` counts the set-aside ones too, `completedOnly` only those who finished the study.
 */
export type Population = { includeSynthetic: boolean; completedOnly: boolean };
export const countedParticipant = (db: Db, column: AnyColumn, population: Population): SQL | undefined =>
  and(population.includeSynthetic ? undefined : notInArray(column, setAsideParticipants(db)), population.completedOnly ? inArray(column, completedParticipants(db)) : undefined);

/** Conditions that show the AI's own explanation by design (alphaLevels [1]), as SQL string literals. */
const aiExplanationConditions = () => {
  const names = studyConfig.conditions.filter((c) => showsAiExplanation(c, studyConfig.mainExperiment.alphaLevels)).map((c) => c.name);
  return names.length === 0 ? sql`(null)` : sql`(${sql.join(names.map((n) => sql`${n}`), sql`, `)})`;
};

/** The session's between-subject condition (one from before conditions ran the spec's design). */
export const sessionCondition = sql<string>`coalesce(${sessions.condition}, ${SPEC_DESIGN.name})`;

/**
 * What a trial showed, and why (queries that use it join the trial's session): `no_ai` nothing of
 * the AI; `prediction_only` the AI's prediction without bars; `ai_explanation` the AI's own bars
 * because the condition shows them by design (also for rows stored before that kind existed, and
 * where the participant's model was missing: the bars shown are the same); `ai_only` the AI's own
 * bars as the fallback for a missing or uninformative participant model, whatever alpha the
 * schedule had; `human_aligned` the alpha mix.
 */
export const shownKind = () => sql<'human_aligned' | 'ai_explanation' | 'ai_only' | 'prediction_only' | 'no_ai'>`(case
  when ${main.aiPrediction} is null then 'no_ai'
  when ${main.explanationKind} = 'prediction_only' then 'prediction_only'
  when ${main.explanationKind} = 'ai_explanation' or ${sessionCondition} in ${aiExplanationConditions()} then 'ai_explanation'
  when ${main.explanationKind} = 'ai_only' then 'ai_only'
  else 'human_aligned' end)`;
/** The alpha of the explanation shown: only for the alpha mix (a fallback's scheduled alpha was never shown). */
export const shownAlpha = () => sql<number | null>`(case when ${shownKind()} = 'human_aligned' then ${main.alignmentAlpha} end)`;

/** A trial with the AI shown after an initial judgement: where switching, RAIR and RSR are defined. */
const twoJudgements = sql`(${withAi} and ${withInitial})`;
/** Where the weight of advice is defined: the AI shown after an initial judgement, its advice somewhere else on the scale. */
const woaDefined = sql`(${twoJudgements} and ${qa} != ${qi})`;
/** Harvey & Fischer's shift toward the advice, truncated to 0…1 (measures.ts). */
const woa = sql`max(0.0, min(1.0, (${qf} - ${qi}) / (${qa} - ${qi})))`;
const initialIsAi = sql`${main.initialPrediction} = ${main.aiPrediction}`;
const finalIsAi = sql`${main.finalPrediction} = ${main.aiPrediction}`;
const aiRight = sql`${main.aiPrediction} = ${main.groundTruth}`;

/** The confidence levels of a final judgement, in order: calibration counts trials at each. */
export const CONFIDENCE_LEVELS = Array.from({ length: studyConfig.confidence.max - studyConfig.confidence.min + 1 }, (_, i) => studyConfig.confidence.min + i);

const trialSumsQuery = (db: Db, population: Population, participantIds: { from: number; to: number }) => {
  const kind = shownKind();
  const alpha = shownAlpha();
  const finalCorrect = sql`${main.finalPrediction} = ${main.groundTruth}`;
  return db
    .select({
      participantId: main.participantId,
      datasetType: main.datasetType,
      condition: sessionCondition,
      kind,
      alpha,
      // Why the AI's own bars were served (read for the fallbacks only; null where none was, and on a fallback stored before reasons were).
      aiOnlyReason: main.aiOnlyReason,
      trials: count(),
      aiTrials: n(withAi),
      agreeFinal: n(sql`${withAi} and ${finalIsAi}`),
      initialTrials: n(withInitial),
      initialDisagrees: n(sql`${twoJudgements} and not ${initialIsAi}`),
      switchedToAi: n(sql`${twoJudgements} and not ${initialIsAi} and ${finalIsAi}`),
      initialWrongAiRight: n(sql`${twoJudgements} and not ${initialIsAi} and ${aiRight}`),
      switchedToRightAi: n(sql`${twoJudgements} and not ${initialIsAi} and ${aiRight} and ${finalIsAi}`),
      initialRightAiWrong: n(sql`${twoJudgements} and not ${initialIsAi} and not ${aiRight}`),
      keptRightInitial: n(sql`${twoJudgements} and not ${initialIsAi} and not ${aiRight} and not ${finalIsAi}`),
      initialCorrect: n(sql`${withInitial} and ${main.initialPrediction} = ${main.groundTruth}`),
      finalCorrectWithInitial: n(sql`${withInitial} and ${finalCorrect}`),
      finalCorrect: n(finalCorrect),
      confidenceChange: sql<number>`coalesce(sum(case when ${withInitial} then ${main.finalConfidence} - ${main.initialConfidence} end), 0)`,
      leanKnown: n(sql`${main.shownLeansWithAi} is not null`),
      leansWithAi: n(sql`${main.shownLeansWithAi} = 1`),
      aiCorrect: n(sql`${withAi} and ${aiRight}`),
      feedbackViewed: n(sql`${main.feedbackViewingTimeMs} is not null`),
      feedbackViewMs: sql<number>`coalesce(sum(${main.feedbackViewingTimeMs}), 0)`,
      adviceOffered: n(sql`${main.adviceRequested} is not null`),
      adviceRequested: n(sql`${main.adviceRequested} = 1`),
      timeLimited: n(sql`${main.timeLimitMs} is not null`),
      timedOut: n(sql`${main.timeLimitMs} is not null and (${main.initialTimedOut} = 1 or ${main.finalTimedOut} = 1)`),
      woaTrials: n(woaDefined),
      woaSum: sql<number>`coalesce(sum(case when ${woaDefined} then ${woa} end), 0)`,
      // Calibration's counts at each confidence level, as one text ("trials:correct" per level, comma-separated).
      atConfidence: sql<string>`${sql.join(
        CONFIDENCE_LEVELS.map((c) => sql`${n(sql`${main.finalConfidence} = ${c}`)} || ':' || ${n(sql`${main.finalConfidence} = ${c} and ${finalCorrect}`)}`),
        sql` || ',' || `,
      )}`,
    })
    .from(main)
    .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
    .where(and(usableTrial, countedParticipant(db, main.participantId, population), between(main.participantId, participantIds.from, participantIds.to)))
    .groupBy(main.participantId, main.datasetType, sessionCondition, kind, alpha, main.aiOnlyReason);
};

/** Sums over one participant's trials of one condition, dataset, kind and alpha: every measure is a ratio of these. */
export type TrialSums = Omit<Awaited<ReturnType<typeof trialSumsQuery>>[number], 'atConfidence'> & {
  /** Trials at each of `CONFIDENCE_LEVELS`, and how many of them were judged right in the end. */
  confidenceTrials: number[];
  confidenceCorrect: number[];
};

/** Participants whose trials one query sums: its answer stays small whatever the study's size. */
const PARTICIPANTS_PER_SLICE = 1000;

/**
 * Every participant's sums (`TrialSums`), read a slice of participant ids at a time: a query's
 * rows arrive all at once, so at 10,000 participants one query would hold them all twice over
 * (as sent and as read) beside the report being made.
 */
export async function trialSums(db: Db, population: Population): Promise<TrialSums[]> {
  const [bounds] = await db.select({ from: min(main.participantId), to: max(main.participantId) }).from(main);
  const out: TrialSums[] = [];
  if (!bounds || bounds.from === null || bounds.to === null) return out;
  for (let from = bounds.from; from <= bounds.to; from += PARTICIPANTS_PER_SLICE) {
    for (const { atConfidence, ...row } of await trialSumsQuery(db, population, { from, to: from + PARTICIPANTS_PER_SLICE - 1 })) {
      const levels = atConfidence.split(',').map((pair) => pair.split(':').map(Number) as [number, number]);
      out.push({ ...row, confidenceTrials: levels.map((l) => l[0]), confidenceCorrect: levels.map((l) => l[1]) });
    }
  }
  return out;
}

/** Every participant with their dataset and progress, for the participant table and the flags. */
export const analyticsParticipants = (db: Db) =>
  db
    .select({
      id: participants.id,
      username: participants.participantCode,
      origin: participants.origin,
      datasetType: sessions.datasetType,
      condition: sessions.condition,
      resumeCount: sessions.resumeCount,
    })
    .from(participants)
    .leftJoin(sessions, eq(sessions.participantId, participants.id));

/**
 * Fills the signal cache for every participant with pre-experiment answers and no cached row
 * (new answers delete the row, by trigger), in one statement: each participant's median response
 * time (the middle value, or the mean of the two middle ones) and longest run of the same
 * prediction in the order answered.
 */
export const refreshParticipantSignals = (db: Db, now: string) =>
  db.run(sql`
    insert or replace into participant_signals (participant_id, pre_median_response_ms, pre_longest_run, computed_at)
    with stale as (
      select p.id from participants p
      where not exists (select 1 from participant_signals s where s.participant_id = p.id)
        and exists (select 1 from pre_experiment_responses r where r.participant_id = p.id)),
    answers as (select participant_id, id, prediction, response_time_ms from pre_experiment_responses where participant_id in (select id from stale)),
    ranked as (
      select participant_id, response_time_ms as ms,
             row_number() over (partition by participant_id order by response_time_ms) as k,
             count(*) over (partition by participant_id) as total
      from answers where response_time_ms is not null),
    medians as (select participant_id, avg(ms) as median_ms from ranked where k in ((total + 1) / 2, (total + 2) / 2) group by participant_id),
    marked as (
      select participant_id, id,
             case when prediction = lag(prediction) over (partition by participant_id order by id) then 0 else 1 end as starts
      from answers),
    runs as (select participant_id, sum(starts) over (partition by participant_id order by id) as run from marked),
    longest as (select participant_id, max(n) as longest from (select participant_id, count(*) as n from runs group by participant_id, run) group by participant_id)
    select s.id, m.median_ms, l.longest, ${now} from stale s left join medians m on m.participant_id = s.id left join longest l on l.participant_id = s.id`);

/** The cached pre-experiment signals of every participant who has answers. */
export const participantSignalRows = (db: Db) => db.select().from(participantSignals);

/** Failed understanding-test attempts per participant. */
export const failedUnderstandingTests = (db: Db) =>
  db
    .select({ participantId: understandingTestAttempts.participantId, failed: count() })
    .from(understandingTestAttempts)
    .where(eq(understandingTestAttempts.passed, false))
    .groupBy(understandingTestAttempts.participantId);

export type GridSection = 'bigfive' | 'locus' | 'cognition';

/** Participants who gave one and the same answer to every listed item of a grid section they answered at least `minItems` of. */
export const straightliners = (db: Db, section: GridSection, items: readonly string[], minItems: number) => {
  const column = postSurveys[section];
  return db.all<{ participant_id: number }>(sql`
    select ${postSurveys.participantId} as participant_id from ${postSurveys}, json_each(${column}) as j
    where j.key in (select value from json_each(${JSON.stringify(items)}))
    group by ${postSurveys.participantId}
    having count(*) >= ${minItems} and count(distinct j.value) = 1`);
};

/** The BFI-10 answers of every post-survey, item by item. */
export const bigFiveAnswers = (db: Db) => db.select({ participantId: postSurveys.participantId, answers: postSurveys.bigfive }).from(postSurveys);

/**
 * One page of the long-format trial table: every completed main-experiment trial with what it
 * showed (by `shownKind`) and the per-trial outcomes the measures count, in response-id order.
 * `set_aside`: the participant is left out of the research figures by default (synthetic, or a bypassed start).
 */
export const trialRows = (db: Db, after: number, limit: number, userName?: string) =>
  db
    .select({
      id: main.id,
      userId: main.participantId,
      username: participants.participantCode,
      origin: participants.origin,
      setAside: sql<number>`(${main.participantId} in ${setAsideParticipants(db)})`,
      completed: sql<number>`(${sessions.postSurveyCompletedAt} is not null)`,
      condition: sessionCondition,
      datasetType: main.datasetType,
      caseId: main.caseId,
      caseNumber: main.caseNumber,
      kind: shownKind(),
      alpha: shownAlpha(),
      scheduledAlpha: main.alignmentAlpha,
      aiOnlyReason: main.aiOnlyReason,
      groundTruth: main.groundTruth,
      initialPrediction: main.initialPrediction,
      initialConfidence: main.initialConfidence,
      aiPrediction: main.aiPrediction,
      finalPrediction: main.finalPrediction,
      finalConfidence: main.finalConfidence,
      aiProbability: main.aiProbability,
      aiBaselineShown: main.aiBaselineShown,
      aiConfidenceShown: main.aiConfidenceShown,
      woa: sql<number | null>`(case when ${woaDefined} then ${woa} end)`,
      leansWithAi: main.shownLeansWithAi,
      initialResponseTimeMs: main.initialResponseTimeMs,
      finalResponseTimeMs: main.finalResponseTimeMs,
      feedbackViewingTimeMs: main.feedbackViewingTimeMs,
      adviceRequested: main.adviceRequested,
      adviceDelayMs: main.adviceDelayMs,
      timeLimitMs: main.timeLimitMs,
      initialTimedOut: main.initialTimedOut,
      finalTimedOut: main.finalTimedOut,
      initialStepMs: main.initialStepMs,
      finalStepMs: main.finalStepMs,
      completedAt: main.completedAt,
    })
    .from(main)
    .innerJoin(participants, eq(participants.id, main.participantId))
    .leftJoin(sessions, eq(sessions.sessionId, main.sessionId))
    .where(and(gt(main.id, after), usableTrial, userName ? eq(participants.participantCode, userName) : undefined))
    .orderBy(asc(main.id))
    .limit(limit);
export type TrialRow = Awaited<ReturnType<typeof trialRows>>[number];
