/**
 * Reliance on the AI, from the stored trials (SQL sums per participant × alpha × confidence):
 * each metric is defined once below, with its formula, and computed per participant, per alpha
 * level and per dataset. Group figures are means of the participants' own values with a 95%
 * t-interval (trials are clustered in people, so participants are the unit), beside the value
 * pooled over all the group's trials. Recomputed on every request: nothing to invalidate.
 */
import type { Db } from '../../db/client';
import { analyticsParticipants, trialSums, type Population, type TrialSums } from '../../db/queries/analytics';
import { studyConfig } from '../../schemas/study';
import { qualityFlags, type ParticipantQuality } from './quality-flags';

type SumKey = Exclude<keyof TrialSums, 'participantId' | 'datasetType' | 'condition' | 'kind' | 'alpha' | 'finalConfidence'>;
type Sums = Record<SumKey, number>;
const SUM_KEYS: SumKey[] = [
  'trials',
  'aiTrials',
  'initialTrials',
  'finalCorrectWithInitial',
  'agreeFinal',
  'initialDisagrees',
  'switchedToAi',
  'initialAgrees',
  'switchedAway',
  'aiWrong',
  'followedWrongAi',
  'aiRightInitialWrong',
  'keptWrong',
  'initialCorrect',
  'finalCorrect',
  'confidenceChange',
  'woaTrials',
  'woaSum',
  'leanKnown',
  'leansWithAi',
];

export type RelianceMetric = {
  id: string;
  label: string;
  formula: string;
  units: string;
  value: (s: Sums) => number | null;
};
const ratio = (num: SumKey, den: SumKey) => (s: Sums) => (s[den] > 0 ? s[num] / s[den] : null);

/** The reliance metrics, each written once (the codebook, the dashboard and the exports read these). */
export const RELIANCE_METRICS: RelianceMetric[] = [
  { id: 'agreement', label: 'Agreement with the AI', formula: "trials with final = AI ÷ trials showing the AI's prediction", units: 'share 0–1', value: ratio('agreeFinal', 'aiTrials') },
  { id: 'switch_to_ai', label: 'Switch to AI', formula: 'trials with initial ≠ AI and final = AI ÷ trials with initial ≠ AI', units: 'share 0–1', value: ratio('switchedToAi', 'initialDisagrees') },
  { id: 'switch_away', label: 'Switch away from AI', formula: 'trials with initial = AI and final ≠ AI ÷ trials with initial = AI', units: 'share 0–1', value: ratio('switchedAway', 'initialAgrees') },
  { id: 'over_reliance', label: 'Over-reliance', formula: 'trials where the AI was wrong and final = AI ÷ trials where the AI was wrong', units: 'share 0–1', value: ratio('followedWrongAi', 'aiWrong') },
  {
    id: 'under_reliance',
    label: 'Under-reliance',
    formula: 'trials where the AI was right, the initial judgement wrong and final = initial ÷ trials where the AI was right and the initial judgement wrong',
    units: 'share 0–1',
    value: ratio('keptWrong', 'aiRightInitialWrong'),
  },
  { id: 'initial_accuracy', label: 'Initial accuracy', formula: 'trials with initial = ground truth ÷ trials with an initial judgement', units: 'share 0–1', value: ratio('initialCorrect', 'initialTrials') },
  { id: 'final_accuracy', label: 'Final accuracy', formula: 'trials with final = ground truth ÷ trials', units: 'share 0–1', value: ratio('finalCorrect', 'trials') },
  {
    id: 'accuracy_gain',
    label: 'Accuracy gain',
    formula: 'final_accuracy − initial_accuracy, over trials with an initial judgement',
    units: 'difference of shares (−1…1)',
    value: (s) => (s.initialTrials > 0 ? (s.finalCorrectWithInitial - s.initialCorrect) / s.initialTrials : null),
  },
  {
    id: 'weight_of_advice',
    label: 'Weight of advice',
    formula:
      'mean over trials with j_AI ≠ j_initial of clamp((j_final − j_initial) ÷ (j_AI − j_initial), 0, 1), where j = +confidence for a positive prediction and −confidence for a negative one (±1…±5) and j_AI = ±5 (the AI’s class at full confidence); undefined without such trials',
    units: '0 = kept own judgement … 1 = adopted the advice',
    value: ratio('woaSum', 'woaTrials'),
  },
  { id: 'confidence_change', label: 'Confidence change', formula: 'mean of final_confidence − initial_confidence over trials with an initial judgement', units: 'confidence points (−4…4)', value: ratio('confidenceChange', 'initialTrials') },
];

/** Calibration: accuracy of the final judgements at each confidence level. */
export const CALIBRATION_FORMULA = 'trials with final = ground truth ÷ trials, among trials with final_confidence = c (c = 1…5)';

const emptySums = (): Sums => Object.fromEntries(SUM_KEYS.map((k) => [k, 0])) as Sums;
const add = (into: Sums, row: Sums) => {
  for (const k of SUM_KEYS) into[k] += Number(row[k]);
};

/** Student's t, 97.5th percentile, for 1…30 degrees of freedom (to 6 digits). */
const T975 = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.13145,
  2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272,
];

/** Two-sided 95% quantile of Student's t: the table up to 30 degrees of freedom, a 3-term Cornish–Fisher expansion beyond (error below 1e-5). */
export function t975(df: number): number {
  if (df <= T975.length) return T975[df - 1]!;
  const z = 1.959963985;
  return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2) + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3);
}

export type Interval = { mean: number | null; ci_low: number | null; ci_high: number | null; participants: number; pooled: number | null };

/** Mean of participants' values with a 95% t-interval (none below two participants). */
export function interval(values: number[], pooled: number | null): Interval {
  const n = values.length;
  if (n === 0) return { mean: null, ci_low: null, ci_high: null, participants: 0, pooled };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return { mean, ci_low: null, ci_high: null, participants: 1, pooled };
  const sd = Math.sqrt(values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1));
  const half = (t975(n - 1) * sd) / Math.sqrt(n);
  return { mean, ci_low: mean - half, ci_high: mean + half, participants: n, pooled };
}

type Calibration = { confidence: number; trials: number; accuracy: number | null }[];
const CONFIDENCE_LEVELS = Array.from({ length: studyConfig.confidence.max - studyConfig.confidence.min + 1 }, (_, i) => studyConfig.confidence.min + i);

function calibrationOf(rows: TrialSums[]): Calibration {
  return CONFIDENCE_LEVELS.map((c) => {
    const at = rows.filter((r) => r.finalConfidence === c);
    const trials = at.reduce((a, r) => a + r.trials, 0);
    const correct = at.reduce((a, r) => a + r.finalCorrect, 0);
    return { confidence: c, trials, accuracy: trials > 0 ? correct / trials : null };
  });
}

/** The share of trials whose bars shown, summed with their signs, leaned toward the AI's own prediction. */
export const LEAN_FORMULA = "trials whose shown bars' signed shares sum toward the AI's predicted label (above 0 for the positive class, below 0 for the negative) ÷ trials with bars";
export type LeanRate = { trials: number; rate: number | null };

export type GroupSummary = { trials: number; participants: number; metrics: Record<string, Interval>; calibration: Calibration; bars_lean_with_ai: LeanRate };

/** A group's figures: each participant's value over the group's trials, then their mean and interval. */
function summarise(rows: TrialSums[]): GroupSummary {
  const perParticipant = new Map<number, Sums>();
  const pooled = emptySums();
  for (const row of rows) {
    const sums = perParticipant.get(row.participantId) ?? emptySums();
    add(sums, row);
    add(pooled, row);
    perParticipant.set(row.participantId, sums);
  }
  const metrics: Record<string, Interval> = {};
  for (const m of RELIANCE_METRICS) {
    const values = [...perParticipant.values()].map(m.value).filter((v): v is number => v !== null);
    metrics[m.id] = interval(values, m.value(pooled));
  }
  return {
    trials: pooled.trials,
    participants: perParticipant.size,
    metrics,
    calibration: calibrationOf(rows),
    bars_lean_with_ai: { trials: pooled.leanKnown, rate: pooled.leanKnown > 0 ? pooled.leansWithAi / pooled.leanKnown : null },
  };
}

export type ParticipantRelianceRow = {
  user_id: number;
  user_name: string;
  dataset_type: string | null;
  trials: number;
  included: boolean;
  quality_flags: string[];
  metrics: Record<string, number | null>;
  calibration: Calibration;
  quality: ParticipantQuality;
};

/**
 * A group of trials by condition and what they showed: within each condition, one per alpha of the
 * human-aligned explanations (alpha 1 shows the AI's own shares), the AI-only fallbacks apart
 * whatever alpha they were scheduled, the AI's prediction alone, or no AI.
 */
export type ShownGroup = { condition: string; explanation_kind: 'human_aligned' | 'ai_only' | 'prediction_only' | 'no_ai'; alignment_alpha: number | null };
const groupKey = (g: { condition: string; kind: string; alpha: number | null }) => `${g.condition}:${g.kind}:${g.alpha ?? ''}`;
const KIND_ORDER = ['human_aligned', 'ai_only', 'prediction_only', 'no_ai'];

export type RelianceOptions = Population & { excludeFlagged: boolean };

export type RelianceReport = {
  exclude_flagged: boolean;
  /** Synthetic participants and bypassed sessions counted (false: left out, the default). */
  include_synthetic: boolean;
  participants_included: number;
  participants_excluded: number;
  overall: GroupSummary;
  by_alpha: (GroupSummary & ShownGroup)[];
  by_condition: (GroupSummary & { condition: string })[];
  by_dataset: (GroupSummary & { dataset_type: string })[];
  participants: ParticipantRelianceRow[];
};

/** Once per request and options: the three reliance tables of an export share one report. */
const perRequest = new WeakMap<Db, Map<string, Promise<RelianceReport>>>();
export function relianceReport(db: Db, options: RelianceOptions): Promise<RelianceReport> {
  const reports = perRequest.get(db) ?? new Map<string, Promise<RelianceReport>>();
  perRequest.set(db, reports);
  const key = `${options.excludeFlagged}:${options.includeSynthetic}`;
  let pending = reports.get(key);
  if (!pending) {
    pending = computeRelianceReport(db, options);
    reports.set(key, pending);
  }
  return pending;
}

async function computeRelianceReport(db: Db, options: RelianceOptions): Promise<RelianceReport> {
  const [rows, people, quality] = await Promise.all([trialSums(db, options), analyticsParticipants(db), qualityFlags(db)]);
  const flagged = (id: number) => (quality.get(id)?.flags.length ?? 0) > 0;
  const counted = options.excludeFlagged ? rows.filter((r) => !flagged(r.participantId)) : rows;
  const byParticipant = new Map<number, TrialSums[]>();
  for (const row of rows) {
    const own = byParticipant.get(row.participantId);
    if (own) own.push(row);
    else byParticipant.set(row.participantId, [row]);
  }

  // By condition in the configuration's order; within one, human-aligned groups by alpha, then the AI-only fallbacks, the prediction alone and no AI.
  const conditionRank = (name: string) => {
    const i = studyConfig.conditions.findIndex((c) => c.name === name);
    return i < 0 ? studyConfig.conditions.length : i;
  };
  const groups = [...new Map(counted.map((r) => [groupKey(r), { condition: r.condition, kind: r.kind, alpha: r.alpha }])).values()].sort(
    (a, b) =>
      conditionRank(a.condition) - conditionRank(b.condition) ||
      a.condition.localeCompare(b.condition) ||
      KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) ||
      (a.alpha ?? -1) - (b.alpha ?? -1),
  );
  const conditions = [...new Set(groups.map((g) => g.condition))];
  const datasets = [...new Set(counted.map((r) => r.datasetType))].sort();
  const participants = people
    .filter((p) => byParticipant.has(p.id))
    .map((p): ParticipantRelianceRow => {
      const own = byParticipant.get(p.id)!;
      const sums = emptySums();
      for (const row of own) add(sums, row);
      const q = quality.get(p.id)!;
      return {
        user_id: p.id,
        user_name: p.username,
        dataset_type: p.datasetType,
        trials: sums.trials,
        included: !(options.excludeFlagged && q.flags.length > 0),
        quality_flags: q.flags,
        metrics: Object.fromEntries(RELIANCE_METRICS.map((m) => [m.id, m.value(sums)])),
        calibration: calibrationOf(own),
        quality: q,
      };
    })
    .sort((a, b) => a.user_id - b.user_id);
  const included = participants.filter((p) => p.included).length;
  return {
    exclude_flagged: options.excludeFlagged,
    include_synthetic: options.includeSynthetic,
    participants_included: included,
    participants_excluded: participants.length - included,
    overall: summarise(counted),
    by_alpha: groups.map((g) => ({
      condition: g.condition,
      explanation_kind: g.kind,
      alignment_alpha: g.alpha,
      ...summarise(counted.filter((r) => groupKey(r) === groupKey(g))),
    })),
    by_condition: conditions.map((condition) => ({ condition, ...summarise(counted.filter((r) => r.condition === condition)) })),
    by_dataset: datasets.map((dataset) => ({ dataset_type: dataset, ...summarise(counted.filter((r) => r.datasetType === dataset)) })),
    participants,
  };
}
