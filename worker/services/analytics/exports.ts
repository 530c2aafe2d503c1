/**
 * The research measures as export tables: the long-format trial table they are computed from, the
 * per-participant table, the group tables the dashboard shows (by condition and alpha, by
 * condition, by condition and dataset), the differences between conditions and the alpha models,
 * with the same numbers (all read `currentRelianceReport`). Their columns carry each measure's formula
 * and source, so the codebook defines them.
 */
import { trialRows, type TrialRow } from '../../db/queries/analytics';
import { ALPHA_SHOWN_MEANING, conditionColumn, FALLBACK_REASON_CODING, qualityFlagsColumn, SCHEDULED_ALPHA, SHOWN_KIND_CODING, type Column, type ExportFilter, type ExportTable } from '../exports/columns';
import { CALIBRATION_FORMULA, LEAN_FORMULA, MEASURES, SUMMARY_METHOD, WOA_FORMULA } from '../../schemas/measures';
import { FEW_CLUSTERS, type ClusteredLogit } from './inference';
import { currentRelianceReport } from './report-cache';
import { type AlphaModel, type ConditionDifference, type GroupSummary, type ParticipantRelianceRow, type RelianceReport } from './reliance';

const relianceOptionsOf = (filter: ExportFilter) => ({ excludeFlagged: filter.excludeFlagged ?? false, includeSynthetic: filter.includeSynthetic ?? false, completedOnly: filter.completedOnly ?? false });

const metricColumns = <R>(value: (row: R, id: string) => number | null, trials: (row: R, id: string) => number): Column<R>[] =>
  MEASURES.flatMap((m): Column<R>[] => [
    { name: m.id, type: 'number', meaning: `${m.label}: ${m.formula}. Source: ${m.source}`, units: m.units, value: (r: R) => value(r, m.id) },
    { name: `${m.id}_trials`, type: 'integer', meaning: `Trials ${m.id} is defined on for the participant (empty value above when 0)`, value: (r: R) => trials(r, m.id) },
  ]);

export const relianceParticipantsTable: ExportTable<ParticipantRelianceRow> = {
  name: 'reliance-participants',
  description: "One row per participant with main-experiment trials: the reliance metrics over their own trials, calibration and the data-quality evidence.",
  columns: [
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.user_id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.user_name },
    { name: 'origin', type: 'category', meaning: 'Who created the participant', coding: 'participant = a person; admin_synthetic = the registration tools', value: (r) => r.origin },
    conditionColumn<ParticipantRelianceRow>((r) => r.condition),
    { name: 'dataset_type', type: 'category', meaning: 'Dataset', value: (r) => r.dataset_type },
    { name: 'trials', type: 'integer', meaning: 'Completed main-experiment trials with every judgement', value: (r) => r.trials },
    { name: 'included', type: 'boolean', meaning: 'Counted in the group figures of this export (false: flagged and excluded on request)', coding: 'true or false', value: (r) => r.included },
    ...metricColumns<ParticipantRelianceRow>(
      (r, id) => r.metrics[id] ?? null,
      (r, id) => r.metric_trials[id] ?? 0,
    ),
    ...[1, 2, 3, 4, 5].map(
      (c): Column<ParticipantRelianceRow> => ({
        name: `final_accuracy_at_confidence_${c}`,
        type: 'number',
        meaning: `Calibration: ${CALIBRATION_FORMULA.replace('c (c = 1…5)', String(c))}`,
        units: 'share 0–1',
        value: (r) => r.calibration.find((x) => x.confidence === c)?.accuracy ?? null,
      }),
    ),
    qualityFlagsColumn<ParticipantRelianceRow>((r) => r.quality_flags),
    { name: 'median_pre_response_ms', type: 'number', meaning: 'Median pre-experiment response time (speeder evidence)', units: 'milliseconds', value: (r) => r.quality.medianPreResponseMs },
    { name: 'longest_same_prediction_run', type: 'integer', meaning: 'Longest run of the same pre-experiment prediction, in the order answered', value: (r) => r.quality.longestSamePredictionRun },
    { name: 'resume_count', type: 'integer', meaning: 'Times the progress was fetched to continue', value: (r) => r.quality.resumeCount },
    { name: 'failed_understanding_tests', type: 'integer', meaning: 'Failed understanding-test attempts', value: (r) => r.quality.failedUnderstandingTests },
    { name: 'bfi_inconsistent_pairs', type: 'integer', meaning: 'BFI-10 pairs answered inconsistently (see quality_flags)', value: (r) => r.quality.bfiInconsistentPairs },
    { name: 'straightlined_sections', type: 'text', meaning: 'Post-survey grid sections with one answer to every item', coding: 'semicolon-separated: bigfive, locus, cognition', value: (r) => r.quality.straightlinedSections.join(';') },
  ],
  async *pages(db, filter) {
    const report = await currentRelianceReport(db, relianceOptionsOf(filter));
    yield filter.userName ? report.participants.filter((p) => p.user_name === filter.userName) : report.participants;
  },
};

type GroupRow = GroupSummary & { group: string; kind?: string; condition?: string };
const groupColumns = (key: string, meaning: string, leading: Column<GroupRow>[] = []): Column<GroupRow>[] => [
  ...leading,
  { name: key, type: 'text', meaning, value: (r) => r.group },
  { name: 'participants', type: 'integer', meaning: 'Participants with trials in the group', value: (r) => r.participants },
  { name: 'trials', type: 'integer', meaning: 'Trials in the group', value: (r) => r.trials },
  { name: 'fallback_trials', type: 'integer', meaning: "Trials of the group that showed the AI's own bars as the fallback for an unusable participant model (counted in the group)", value: (r) => r.fallback_trials },
  {
    name: 'fallback_reasons',
    type: 'text',
    meaning: 'Those fallback trials by why the participant model was unusable',
    coding: `reason:trials, semicolon-separated, reasons in alphabetical order; empty when none. ${FALLBACK_REASON_CODING}`,
    value: (r) => Object.entries(r.fallback_reasons).map(([reason, n]) => `${reason}:${n}`).join(';'),
  },
  {
    name: 'bars_lean_with_ai',
    type: 'number',
    meaning: `Explanations leaning with the AI: ${LEAN_FORMULA} (pooled over the group's trials)`,
    units: 'share 0–1',
    value: (r) => r.bars_lean_with_ai.rate,
  },
  ...MEASURES.flatMap((m): Column<GroupRow>[] => [
    { name: `${m.id}_mean`, type: 'number', meaning: `${m.label}: mean over participants of their own value (${m.formula}). Source: ${m.source}`, units: m.units, value: (r) => r.metrics[m.id]?.mean ?? null },
    { name: `${m.id}_ci_low`, type: 'number', meaning: `${m.label}: lower end of the 95% participant-level percentile-bootstrap interval of that mean`, units: m.units, value: (r) => r.metrics[m.id]?.ci_low ?? null },
    { name: `${m.id}_ci_high`, type: 'number', meaning: `${m.label}: upper end of the 95% bootstrap interval`, units: m.units, value: (r) => r.metrics[m.id]?.ci_high ?? null },
    { name: `${m.id}_participants`, type: 'integer', meaning: `${m.label}: participants with a value (the mean's n)`, value: (r) => r.metrics[m.id]?.participants ?? 0 },
    { name: `${m.id}_trials`, type: 'integer', meaning: `${m.label}: trials it is defined on, over those participants`, value: (r) => r.metrics[m.id]?.trials ?? 0 },
    { name: `${m.id}_pooled`, type: 'number', meaning: `${m.label} over all those trials pooled (descriptive; the mean is the figure)`, units: m.units, value: (r) => r.metrics[m.id]?.pooled ?? null },
  ]),
];

const CONDITION_OF_TRIALS = 'Between-subject condition of the trials (study configuration conditions[].name)';

export const relianceByAlphaTable: ExportTable<GroupRow> = {
  name: 'reliance-by-alpha',
  description: `The reliance measures per condition and what was shown: within each condition, each alpha of the human-aligned explanations, the AI's explanation by design, the AI-only fallbacks apart, the prediction alone, or no AI. ${SUMMARY_METHOD} Synthetic participants and bypassed sessions are left out unless the export asked for them.`,
  columns: groupColumns('alignment_alpha', 'Alpha of the explanation shown (empty for the other groups)', [
    conditionColumn<GroupRow>((r) => r.condition ?? null, CONDITION_OF_TRIALS),
    {
      name: 'explanation_kind',
      type: 'category',
      meaning: 'What the group of trials showed, and why',
      coding: SHOWN_KIND_CODING,
      value: (r) => r.kind,
    },
  ]),
  async *pages(db, filter) {
    if (filter.userName) return;
    const report = await currentRelianceReport(db, relianceOptionsOf(filter));
    yield report.by_alpha.map((g) => ({ ...g, kind: g.explanation_kind, group: g.alignment_alpha === null ? '' : String(g.alignment_alpha) }));
  },
};

/** The reliance metrics per group of one report's (condition, dataset). */
const groupTable = (name: string, description: string, key: string, meaning: string, groups: (r: RelianceReport) => GroupRow[], leading: Column<GroupRow>[] = []): ExportTable<GroupRow> => ({
  name,
  description,
  columns: groupColumns(key, meaning, leading),
  async *pages(db, filter) {
    if (filter.userName) return;
    yield groups(await currentRelianceReport(db, relianceOptionsOf(filter)));
  },
});

export const relianceByConditionTable = groupTable(
  'reliance-by-condition',
  `The reliance measures per between-subject condition, AI-only fallback trials included and counted in fallback_trials. ${SUMMARY_METHOD}`,
  'condition',
  CONDITION_OF_TRIALS,
  (r) => r.by_condition.map((g) => ({ ...g, group: g.condition })),
);

export const relianceByDatasetTable = groupTable(
  'reliance-by-dataset',
  `The reliance measures per condition and dataset (conditions are never pooled). ${SUMMARY_METHOD}`,
  'dataset_type',
  'Dataset of the trials',
  (r) => r.by_dataset.map((g) => ({ ...g, group: g.dataset_type })),
  [conditionColumn<GroupRow>((r) => r.condition ?? null, CONDITION_OF_TRIALS)],
);

export const conditionDifferencesTable: ExportTable<ConditionDifference> = {
  name: 'reliance-condition-differences',
  description: `Every measure's difference between each pair of between-subject conditions: condition_b's participant mean minus condition_a's, with a 95% percentile-bootstrap interval (each condition's participants resampled on their own). ${SUMMARY_METHOD}`,
  columns: [
    { name: 'metric', type: 'category', meaning: 'The measure (a column of reliance-participants)', coding: MEASURES.map((m) => m.id).join(', '), value: (r) => r.metric },
    { name: 'condition_a', type: 'category', meaning: 'The condition subtracted', value: (r) => r.condition_a },
    { name: 'condition_b', type: 'category', meaning: 'The condition subtracted from', value: (r) => r.condition_b },
    { name: 'participants_a', type: 'integer', meaning: "Participants of condition_a with a value", value: (r) => r.participants_a },
    { name: 'participants_b', type: 'integer', meaning: "Participants of condition_b with a value", value: (r) => r.participants_b },
    { name: 'difference', type: 'number', meaning: 'mean(condition_b) − mean(condition_a), each the mean of participants\' own values', value: (r) => r.difference },
    { name: 'ci_low', type: 'number', meaning: 'Lower end of the 95% bootstrap interval of the difference', value: (r) => r.ci_low },
    { name: 'ci_high', type: 'number', meaning: 'Upper end of the 95% bootstrap interval', value: (r) => r.ci_high },
  ],
  async *pages(db, filter) {
    if (filter.userName) return;
    yield (await currentRelianceReport(db, relianceOptionsOf(filter))).condition_differences;
  },
};

type AlphaModelRow = AlphaModel & Partial<ClusteredLogit> & { refused?: string };
const modelNumber = (name: keyof ClusteredLogit, meaning: string): Column<AlphaModelRow> => ({ name, type: 'number', meaning, value: (r) => r[name] ?? null });
export const alphaModelsTable: ExportTable<AlphaModelRow> = {
  name: 'reliance-alpha-models',
  description:
    "The alpha effect within participants, per condition that spread several alphas: a logistic regression of agreement with the AI (over trials showing the human-aligned explanation) and of switching to the AI (over those with initial ≠ AI) on alpha, with participant-clustered standard errors and the small-cluster t reference (G − 1 degrees of freedom for G participants), as statsmodels' Logit(y, [1, alpha]).fit(cov_type='cluster', cov_kwds={'groups': participant}, use_t=True) computes them. analysis/models.R fits the mixed model with random intercepts for participant and case.",
  columns: [
    { name: 'condition', type: 'category', meaning: 'Condition of the trials', value: (r) => r.condition },
    { name: 'outcome', type: 'category', meaning: 'What is regressed on alpha', coding: 'agreement = final = AI (trials showing the AI); switch = final = AI among trials with initial ≠ AI', value: (r) => r.outcome },
    { name: 'trials', type: 'integer', meaning: 'Trials in the fit', value: (r) => r.trials },
    { name: 'participants', type: 'integer', meaning: 'Participants (clusters) in the fit', value: (r) => r.participants },
    { name: 'refused', type: 'category', meaning: 'Why no model was fitted (empty when it was)', coding: 'too_few_participants, no_variation_in_outcome, no_variation_in_covariate, not_converged', value: (r) => r.refused ?? null },
    modelNumber('intercept', 'Log-odds of the outcome at alpha 0'),
    modelNumber('intercept_se', 'Cluster-robust standard error of the intercept'),
    modelNumber('slope', 'Change in log-odds from alpha 0 to alpha 1'),
    modelNumber('slope_se', 'Cluster-robust standard error of the slope'),
    modelNumber('slope_t', "slope ÷ slope_se, referred to Student's t with df degrees of freedom"),
    modelNumber('df', 'Degrees of freedom of the t reference: participants (clusters) − 1'),
    modelNumber('slope_p', "Two-sided p-value of slope_t (Student's t with df degrees of freedom, the small-cluster reference)"),
    modelNumber('slope_ci_low', "Lower end of the slope's 95% interval (slope − t(0.975, df) × slope_se)"),
    modelNumber('slope_ci_high', "Upper end of the slope's 95% interval"),
    {
      name: 'few_clusters',
      type: 'boolean',
      meaning: `Fewer than ${FEW_CLUSTERS} participants (clusters): cluster-robust standard errors rest on few clusters and may still be too small; read the interval with care (Cameron & Miller 2015)`,
      coding: 'true or false; empty when no model was fitted',
      value: (r) => r.few_clusters ?? null,
    },
    modelNumber('odds_ratio', 'exp(slope): odds ratio from alpha 0 to alpha 1'),
  ],
  async *pages(db, filter) {
    if (filter.userName) return;
    yield (await currentRelianceReport(db, relianceOptionsOf(filter))).alpha_models;
  },
};

const BINARY = '1 = yes, 0 = no, empty = not defined for the trial';
const flag = (v: boolean | null) => (v === null ? null : v ? 1 : 0);
const bothKnown = (a: number | null, b: number | null) => a !== null && b !== null;

/** One row per completed main-experiment trial, long format: what a mixed model or a pandas group-by reads as it is. */
export const trialsTable: ExportTable<TrialRow> = {
  name: 'trials',
  description:
    'One row per completed main-experiment trial (long format): participant, condition, what was shown and why, the three judgements, correctness and the per-trial outcomes the measures count (1/0, empty where a measure is not defined). Every participant is listed; set_aside marks those the research figures leave out by default. analysis/reproduce.py recomputes every dashboard figure from this table.',
  columns: [
    { name: 'trial_id', type: 'integer', meaning: 'Response id (main-experiment.id)', value: (r) => r.id },
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.userId },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.username },
    { name: 'origin', type: 'category', meaning: 'Who created the participant', coding: 'participant = a person; admin_synthetic = the registration tools', value: (r) => r.origin },
    { name: 'set_aside', type: 'integer', meaning: 'Left out of the research figures unless synthetic participants are asked for (synthetic, test_ ID, or a bypassed main start)', coding: '1 = yes, 0 = no', value: (r) => (r.setAside ? 1 : 0) },
    { name: 'completed', type: 'integer', meaning: 'The participant finished the study (post-survey submitted); the figures count everyone by default, only these when completers only are asked for', coding: '1 = yes, 0 = no', value: (r) => (r.completed ? 1 : 0) },
    conditionColumn<TrialRow>((r) => r.condition, CONDITION_OF_TRIALS),
    { name: 'dataset_type', type: 'category', meaning: 'Dataset of the case', value: (r) => r.datasetType },
    { name: 'case_id', type: 'text', meaning: 'Case judged (see case-data)', value: (r) => r.caseId },
    { name: 'case_number', type: 'integer', meaning: 'Number of the case in its set', value: (r) => r.caseNumber },
    { name: 'shown_kind', type: 'category', meaning: 'What the trial showed of the AI, and why', coding: SHOWN_KIND_CODING, value: (r) => r.kind },
    { name: 'alpha', type: 'number', meaning: ALPHA_SHOWN_MEANING, units: '0–1', value: (r) => r.alpha },
    { ...SCHEDULED_ALPHA, value: (r) => r.scheduledAlpha },
    { name: 'ai_only_reason', type: 'category', meaning: "Why the AI's own bars were served as a fallback", coding: `${FALLBACK_REASON_CODING}; empty otherwise`, value: (r) => r.aiOnlyReason },
    { name: 'ground_truth', type: 'integer', meaning: 'True outcome', coding: '1 = positive class, 0 = negative', value: (r) => r.groundTruth },
    { name: 'initial', type: 'integer', meaning: 'Judgement before the AI (empty: the condition has none)', coding: '1 = positive class, 0 = negative', value: (r) => r.initialPrediction },
    { name: 'initial_confidence', type: 'integer', meaning: 'Confidence of the initial judgement', coding: '1 … 5', value: (r) => r.initialConfidence },
    { name: 'ai', type: 'integer', meaning: "The AI's prediction shown (empty: no AI)", coding: '1 = positive class, 0 = negative', value: (r) => r.aiPrediction },
    {
      name: 'ai_correct',
      type: 'integer',
      meaning: "The AI's prediction shown equals the true outcome (ai = ground_truth; a condition's aiAccuracy sets the share of these among its cases); empty: no AI",
      coding: BINARY,
      value: (r) => (r.aiPrediction === null ? null : flag(r.aiPrediction === r.groundTruth)),
    },
    { name: 'final', type: 'integer', meaning: 'Final judgement', coding: '1 = positive class, 0 = negative', value: (r) => r.finalPrediction },
    { name: 'final_confidence', type: 'integer', meaning: 'Confidence of the final judgement', coding: '1 … 5', value: (r) => r.finalConfidence },
    { name: 'initial_correct', type: 'integer', meaning: 'initial = ground_truth', coding: BINARY, value: (r) => (r.initialPrediction === null ? null : flag(r.initialPrediction === r.groundTruth)) },
    { name: 'ai_correct', type: 'integer', meaning: 'ai = ground_truth', coding: BINARY, value: (r) => (r.aiPrediction === null ? null : flag(r.aiPrediction === r.groundTruth)) },
    { name: 'final_correct', type: 'integer', meaning: 'final = ground_truth', coding: BINARY, value: (r) => flag(r.finalPrediction === r.groundTruth) },
    { name: 'agree', type: 'integer', meaning: 'final = ai (the agreement fraction counts these; empty without AI)', coding: BINARY, value: (r) => (r.aiPrediction === null ? null : flag(r.finalPrediction === r.aiPrediction)) },
    {
      name: 'switch',
      type: 'integer',
      meaning: 'final = ai on a trial with initial ≠ ai (the switch fraction counts these; empty unless the AI was shown after an initial judgement that differed)',
      coding: BINARY,
      value: (r) => (bothKnown(r.aiPrediction, r.initialPrediction) && r.aiPrediction !== r.initialPrediction ? flag(r.finalPrediction === r.aiPrediction) : null),
    },
    { name: 'ai_probability', type: 'number', meaning: "The AI's probability of the positive class, as served (recorded whether or not it was shown)", units: 'probability 0–1', value: (r) => r.aiProbability },
    {
      name: 'ai_probability_shown',
      type: 'integer',
      meaning:
        "The panel showed the AI's probability: with its bars and base rate (study configuration mainExperiment.showAiBaseline; only with the AI's own bars), or as its confidence in the class it predicts (the condition's aiConfidence)",
      coding: BINARY,
      value: (r) => (r.aiBaselineShown === null && r.aiConfidenceShown === null ? null : flag(r.aiBaselineShown === true || r.aiConfidenceShown === true)),
    },
    {
      name: 'ai_confidence_shown',
      type: 'integer',
      meaning: "The panel showed the AI's confidence, its probability for the class it predicts (the condition's aiConfidence); empty without the AI",
      coding: BINARY,
      value: (r) => (r.aiConfidenceShown === null ? null : flag(r.aiConfidenceShown)),
    },
    {
      name: 'weight_of_advice',
      type: 'number',
      meaning: `The trial's weight of advice (empty where it is not defined): ${WOA_FORMULA.replace('mean over trials with the AI shown after an initial judgement and its advice placed elsewhere than that judgement of ', '')}`,
      units: MEASURES.find((m) => m.id === 'weight_of_advice')!.units,
      value: (r) => r.woa,
    },
    { name: 'bars_lean_with_ai', type: 'integer', meaning: "The bars shown lean toward the AI's prediction (empty without bars)", coding: BINARY, value: (r) => (r.leansWithAi === null ? null : flag(r.leansWithAi)) },
    { name: 'initial_response_time_ms', type: 'integer', meaning: 'Decision time of the initial judgement', units: 'milliseconds', value: (r) => r.initialResponseTimeMs },
    { name: 'final_response_time_ms', type: 'integer', meaning: 'Decision time of the final judgement', units: 'milliseconds', value: (r) => r.finalResponseTimeMs },
    {
      name: 'feedback_viewing_time_ms',
      type: 'integer',
      meaning: "How long the case's outcome feedback was on screen (a condition's outcomeFeedback), from its first frame to the click that moved on; empty where none was shown or its time never arrived",
      units: 'milliseconds',
      value: (r) => r.feedbackViewingTimeMs,
    },
    {
      name: 'advice_requested',
      type: 'integer',
      meaning: "The participant asked for the AI's advice on this case, in a condition that gave it only on request (adviceOnRequest); the advice request rate counts these; empty in other conditions",
      coding: BINARY,
      value: (r) => (r.adviceRequested === null ? null : flag(r.adviceRequested)),
    },
    {
      name: 'advice_delay_ms',
      type: 'integer',
      meaning: "Time by the Worker's clock from the kept initial judgement to the AI's first serve for the case: when the advice was asked for, and never shorter than a condition's forced wait (adviceWaitSeconds); empty without an initial judgement or without the AI",
      units: 'milliseconds',
      value: (r) => r.adviceDelayMs,
    },
    {
      name: 'time_limit_ms',
      type: 'integer',
      meaning: "The time limit each judgement step of the trial had (the condition's timeLimit); the timeout rate counts the trials that have one; empty without a limit",
      units: 'milliseconds',
      value: (r) => r.timeLimitMs,
    },
    {
      name: 'initial_timed_out',
      type: 'integer',
      meaning: "The initial judgement step's time limit ran out before the judgement was given, by the page's countdown (a word the Worker refused where its own clock said otherwise); empty without a limit or an initial judgement",
      coding: BINARY,
      value: (r) => (r.initialTimedOut === null ? null : flag(r.initialTimedOut)),
    },
    {
      name: 'final_timed_out',
      type: 'integer',
      meaning: "The final (or only) judgement step's time limit ran out before the judgement was given, by the page's countdown, checked as initial_timed_out is; empty without a limit",
      coding: BINARY,
      value: (r) => (r.finalTimedOut === null ? null : flag(r.finalTimedOut)),
    },
    {
      name: 'initial_step_ms',
      type: 'integer',
      meaning: "How long the initial judgement step lasted by the Worker's clock, from the case on screen to the judgement kept; at or above time_limit_ms the Worker's clock says it ran out too; empty without a limit or where the step's start or end did not reach the Worker",
      units: 'milliseconds',
      value: (r) => r.initialStepMs,
    },
    {
      name: 'final_step_ms',
      type: 'integer',
      meaning: "How long the final (or only) judgement step lasted by the Worker's clock, from when it opened (the case on screen, the kept initial judgement, or the move on from the AI's own step) to the judgement kept; empty as initial_step_ms",
      units: 'milliseconds',
      value: (r) => r.finalStepMs,
    },
    { name: 'completed_at', type: 'timestamp', meaning: 'When the trial was stored complete', coding: 'ISO 8601, UTC', value: (r) => r.completedAt },
  ],
  resumable: true,
  async *pages(db, filter, cursor = { after: 0 }) {
    for (;;) {
      const rows = await trialRows(db, cursor.after, 2000, filter.userName);
      if (rows.length === 0) return;
      cursor.after = rows[rows.length - 1]!.id;
      yield rows;
      if (rows.length < 2000) return;
    }
  },
};
