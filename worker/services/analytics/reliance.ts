/**
 * Reliance on the AI, from the stored trials (SQL sums per participant and group, see
 * `trialSums`): every measure of `measures.ts` per participant, then across participants with a
 * participant-level bootstrap interval, per condition and what was shown (alpha), per condition,
 * per condition and dataset; differences between conditions; and the alpha effect within
 * participants as a participant-clustered logistic regression. Between-subject conditions are
 * never pooled: `overall` exists only where the data hold one condition. Exports compute it from
 * the rows at hand; the dashboard serves it kept (`report-cache.ts`).
 */
import type { Db } from '../../db/client';
import { analyticsParticipants, CONFIDENCE_LEVELS, trialSums, type Population, type TrialSums } from '../../db/queries/analytics';
import { studyConfig } from '../../schemas/study';
import { bootstrapDifferences, bootstrapMeans, clusteredLogit, type ClusteredLogit, type LogitCell, type LogitRefusal } from './inference';
import { addSums, emptySums, MEASURES, type Sums } from '../../schemas/measures';
import { qualityFlags, type ParticipantQuality } from './quality-flags';

/** A group's figure for one measure: the participants' mean and its interval, how many participants and trials it rests on, and the value pooled over those trials. */
export type Interval = { mean: number | null; ci_low: number | null; ci_high: number | null; participants: number; trials: number; pooled: number | null };

type Calibration = { confidence: number; trials: number; accuracy: number | null }[];

function calibrationOf(rows: TrialSums[]): Calibration {
  return CONFIDENCE_LEVELS.map((c, k) => {
    const trials = rows.reduce((a, r) => a + r.confidenceTrials[k]!, 0);
    const correct = rows.reduce((a, r) => a + r.confidenceCorrect[k]!, 0);
    return { confidence: c, trials, accuracy: trials > 0 ? correct / trials : null };
  });
}

export type LeanRate = { trials: number; rate: number | null };

export type GroupSummary = {
  trials: number;
  participants: number;
  /** Trials that showed the AI's own bars as the fallback for an unusable participant model (counted in the group, reported apart). */
  fallback_trials: number;
  /** Those trials by why the participant's model was unusable (`unrecorded`: stored before reasons were), each reason present once. */
  fallback_reasons: Record<string, number>;
  metrics: Record<string, Interval>;
  calibration: Calibration;
  bars_lean_with_ai: LeanRate;
};

/** Each participant's sums over some rows, in participant-id order (the bootstrap's order). */
function perParticipant(rows: TrialSums[]): Map<number, Sums> {
  const by = new Map<number, Sums>();
  for (const row of [...rows].sort((a, b) => a.participantId - b.participantId)) {
    const sums = by.get(row.participantId) ?? emptySums();
    addSums(sums, row);
    by.set(row.participantId, sums);
  }
  return by;
}

/** A group's fallback trials by reason, the reasons in alphabetical order. */
function fallbackReasons(rows: TrialSums[]): Record<string, number> {
  const by = new Map<string, number>();
  for (const r of rows) {
    if (r.kind !== 'ai_only') continue;
    const reason = r.aiOnlyReason ?? 'unrecorded';
    by.set(reason, (by.get(reason) ?? 0) + r.trials);
  }
  return Object.fromEntries([...by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every participant's value of every measure (null where undefined), in participant-id order. */
const tableOf = (people: Map<number, Sums>) => [...people.values()].map((sums) => MEASURES.map((m) => m.value(sums)));

/**
 * The name a group's bootstrap stream is derived from (`streamSeed`): its kind of grouping and its
 * keys, alphas written as JavaScript writes numbers (reproduce.py builds the same names).
 */
export const streamName = {
  overall: () => 'overall',
  condition: (condition: string) => `condition/${condition}`,
  shown: (g: { condition: string; kind: string; alpha: number | null }) => `shown/${g.condition}/${g.kind}/${g.alpha === null ? '' : String(g.alpha)}`,
  dataset: (condition: string, dataset: string) => `dataset/${condition}/${dataset}`,
  difference: (a: string, b: string) => `difference/${a}/${b}`,
};

/** A group's figures: each participant's value over the group's trials, then their mean and interval (from the group's own stream). */
function summarise(rows: TrialSums[], stream: string): GroupSummary {
  const people = perParticipant(rows);
  const pooled = emptySums();
  for (const sums of people.values()) addSums(pooled, sums);
  const table = tableOf(people);
  const intervals = bootstrapMeans(table, MEASURES.length, stream);
  const metrics: Record<string, Interval> = {};
  MEASURES.forEach((m, k) => {
    const participants = table.filter((row) => row[k] !== null).length;
    metrics[m.id] = { ...intervals[k]!, participants, trials: pooled[m.definedOn], pooled: m.value(pooled) };
  });
  return {
    trials: pooled.trials,
    participants: people.size,
    fallback_trials: rows.filter((r) => r.kind === 'ai_only').reduce((a, r) => a + r.trials, 0),
    fallback_reasons: fallbackReasons(rows),
    metrics,
    calibration: calibrationOf(rows),
    bars_lean_with_ai: { trials: pooled.leanKnown, rate: pooled.leanKnown > 0 ? pooled.leansWithAi / pooled.leanKnown : null },
  };
}

export type ParticipantRelianceRow = {
  user_id: number;
  user_name: string;
  origin: string;
  dataset_type: string | null;
  condition: string | null;
  trials: number;
  included: boolean;
  quality_flags: string[];
  metrics: Record<string, number | null>;
  /** The trials each measure is defined on, for this participant. */
  metric_trials: Record<string, number>;
  calibration: Calibration;
  quality: ParticipantQuality;
};

/**
 * A group of trials by condition and what they showed: within each condition, one per alpha of the
 * human-aligned explanations, the AI's own explanation by design, the AI-only fallbacks apart
 * whatever alpha they were scheduled, the AI's prediction alone, or no AI.
 */
export type ShownGroup = { condition: string; explanation_kind: TrialSums['kind']; alignment_alpha: number | null };
const groupKey = (g: { condition: string; kind: string; alpha: number | null }) => `${g.condition}:${g.kind}:${g.alpha ?? ''}`;
const KIND_ORDER = ['human_aligned', 'ai_explanation', 'ai_only', 'prediction_only', 'no_ai'];

/** One measure's difference between two conditions: condition_b's participant mean minus condition_a's. */
export type ConditionDifference = {
  metric: string;
  condition_a: string;
  condition_b: string;
  participants_a: number;
  participants_b: number;
  difference: number | null;
  ci_low: number | null;
  ci_high: number | null;
};

/** The alpha effect in one condition: agreement (or switching) regressed on alpha, participant-clustered. */
export type AlphaModel = { condition: string; outcome: 'agreement' | 'switch' } & (ClusteredLogit | LogitRefusal);

export type RelianceOptions = Population & { excludeFlagged: boolean };

export type RelianceReport = {
  exclude_flagged: boolean;
  /** Synthetic participants and bypassed sessions counted (false: left out, the default). */
  include_synthetic: boolean;
  /** Only participants who finished the study counted (false, the default: everyone with trials, finished or not). */
  completed_only: boolean;
  participants_included: number;
  participants_excluded: number;
  /** Trials counted in the group figures. */
  trials: number;
  /** Every counted trial as one group: only where they hold a single condition (null otherwise: conditions are never pooled). */
  overall: GroupSummary | null;
  by_alpha: (GroupSummary & ShownGroup)[];
  by_condition: (GroupSummary & { condition: string })[];
  by_dataset: (GroupSummary & { condition: string; dataset_type: string })[];
  condition_differences: ConditionDifference[];
  alpha_models: AlphaModel[];
  participants: ParticipantRelianceRow[];
};

/** A group's figures without its name (the one condition's figures are the overall ones). */
const groupOnly = ({ condition: _condition, ...group }: GroupSummary & { condition: string }): GroupSummary => group;

/**
 * Lets other requests sharing the isolate run: each group's bootstrap holds it for up to half a
 * second at 10,000 participants, and a report computed after a response must not keep that
 * response, or a participant's answer on the same isolate, waiting for the whole report.
 */
const yieldToOthers = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** Agreement and switching regressed on alpha over a condition's human-aligned trials, where it spread more than one alpha. */
function alphaModels(rows: TrialSums[], conditions: string[]): AlphaModel[] {
  const models: AlphaModel[] = [];
  for (const condition of conditions) {
    const own = rows.filter((r) => r.condition === condition && r.kind === 'human_aligned' && r.alpha !== null);
    if (new Set(own.map((r) => r.alpha)).size < 2) continue;
    for (const outcome of ['agreement', 'switch'] as const) {
      const cells = new Map<string, LogitCell>();
      for (const r of own) {
        const key = `${r.participantId}:${r.alpha}`;
        const cell = cells.get(key) ?? { cluster: r.participantId, x: r.alpha!, trials: 0, successes: 0 };
        cell.trials += outcome === 'agreement' ? r.aiTrials : r.initialDisagrees;
        cell.successes += outcome === 'agreement' ? r.agreeFinal : r.switchedToAi;
        cells.set(key, cell);
      }
      const ordered = [...cells.values()].sort((a, b) => a.cluster - b.cluster || a.x - b.x);
      models.push({ condition, outcome, ...clusteredLogit(ordered) });
    }
  }
  return models;
}

/** Every measure's difference between each pair of conditions (in the configuration's order), where both have participants with a value. */
async function conditionDifferences(rows: TrialSums[], conditions: string[]): Promise<ConditionDifference[]> {
  const tables = new Map(conditions.map((c) => [c, tableOf(perParticipant(rows.filter((r) => r.condition === c)))]));
  const out: ConditionDifference[] = [];
  const defined = (table: ReturnType<typeof tableOf>, k: number) => table.filter((row) => row[k] !== null).length;
  for (let i = 0; i < conditions.length; i++) {
    for (let j = i + 1; j < conditions.length; j++) {
      const a = tables.get(conditions[i]!)!;
      const b = tables.get(conditions[j]!)!;
      await yieldToOthers();
      const differences = bootstrapDifferences(a, b, MEASURES.length, streamName.difference(conditions[i]!, conditions[j]!));
      MEASURES.forEach((m, k) => {
        const [na, nb] = [defined(a, k), defined(b, k)];
        if (na === 0 || nb === 0) return;
        const d = differences[k]!;
        out.push({ metric: m.id, condition_a: conditions[i]!, condition_b: conditions[j]!, participants_a: na, participants_b: nb, difference: d.mean, ci_low: d.ci_low, ci_high: d.ci_high });
      });
    }
  }
  const order = (metric: string) => MEASURES.findIndex((m) => m.id === metric);
  // Listed measure by measure, each over the pairs in order.
  return out.map((d, i) => ({ d, i })).sort((x, y) => order(x.d.metric) - order(y.d.metric) || x.i - y.i).map((x) => x.d);
}

/** Each item's group figures in order, yielding between groups. */
async function summariseEach<T>(items: readonly T[], rowsOf: (item: T) => TrialSums[], stream: (item: T) => string): Promise<GroupSummary[]> {
  const out: GroupSummary[] = [];
  for (const item of items) {
    await yieldToOthers();
    out.push(summarise(rowsOf(item), stream(item)));
  }
  return out;
}

export async function computeRelianceReport(db: Db, options: RelianceOptions): Promise<RelianceReport> {
  const [rows, people, quality] = await Promise.all([trialSums(db, options), analyticsParticipants(db), qualityFlags(db)]);
  const flagged = (id: number) => (quality.get(id)?.flags.length ?? 0) > 0;
  const counted = options.excludeFlagged ? rows.filter((r) => !flagged(r.participantId)) : rows;
  const byParticipant = new Map<number, TrialSums[]>();
  for (const row of rows) {
    const own = byParticipant.get(row.participantId);
    if (own) own.push(row);
    else byParticipant.set(row.participantId, [row]);
  }

  // By condition in the configuration's order; within one, human-aligned groups by alpha, then the AI's explanation, the AI-only fallbacks, the prediction alone and no AI.
  const conditionRank = (name: string) => {
    const i = studyConfig.conditions.findIndex((c) => c.name === name);
    return i < 0 ? studyConfig.conditions.length : i;
  };
  const byConditionOrder = (a: string, b: string) => conditionRank(a) - conditionRank(b) || a.localeCompare(b);
  const groups = [...new Map(counted.map((r) => [groupKey(r), { condition: r.condition, kind: r.kind, alpha: r.alpha }])).values()].sort(
    (a, b) => byConditionOrder(a.condition, b.condition) || KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || (a.alpha ?? -1) - (b.alpha ?? -1),
  );
  const conditions = [...new Set(counted.map((r) => r.condition))].sort(byConditionOrder);
  const cells = [...new Map(counted.map((r) => [`${r.condition}:${r.datasetType}`, { condition: r.condition, dataset: r.datasetType }])).values()].sort(
    (a, b) => byConditionOrder(a.condition, b.condition) || a.dataset.localeCompare(b.dataset),
  );
  const participants = people
    .filter((p) => byParticipant.has(p.id))
    .map((p): ParticipantRelianceRow => {
      const own = byParticipant.get(p.id)!;
      const sums = emptySums();
      for (const row of own) addSums(sums, row);
      const q = quality.get(p.id)!;
      return {
        user_id: p.id,
        user_name: p.username,
        origin: p.origin,
        dataset_type: p.datasetType,
        condition: own[0]!.condition,
        trials: sums.trials,
        included: !(options.excludeFlagged && q.flags.length > 0),
        quality_flags: q.flags,
        metrics: Object.fromEntries(MEASURES.map((m) => [m.id, m.value(sums)])),
        metric_trials: Object.fromEntries(MEASURES.map((m) => [m.id, sums[m.definedOn]])),
        calibration: calibrationOf(own),
        quality: q,
      };
    })
    .sort((a, b) => a.user_id - b.user_id);
  const included = participants.filter((p) => p.included).length;
  const byCondition = (await summariseEach(conditions, (condition) => counted.filter((r) => r.condition === condition), streamName.condition)).map((group, i) => ({
    condition: conditions[i]!,
    ...group,
  }));
  const byAlpha = await summariseEach(groups, (g) => counted.filter((r) => groupKey(r) === groupKey(g)), streamName.shown);
  const byDataset = await summariseEach(
    cells,
    ({ condition, dataset }) => counted.filter((r) => r.condition === condition && r.datasetType === dataset),
    ({ condition, dataset }) => streamName.dataset(condition, dataset),
  );
  await yieldToOthers();
  return {
    exclude_flagged: options.excludeFlagged,
    include_synthetic: options.includeSynthetic,
    completed_only: options.completedOnly,
    participants_included: included,
    participants_excluded: participants.length - included,
    trials: counted.reduce((a, r) => a + r.trials, 0),
    overall: conditions.length <= 1 ? (byCondition[0] ? groupOnly(byCondition[0]) : summarise(counted, streamName.overall())) : null,
    by_alpha: groups.map((g, i) => ({ condition: g.condition, explanation_kind: g.kind, alignment_alpha: g.alpha, ...byAlpha[i]! })),
    by_condition: byCondition,
    by_dataset: cells.map(({ condition, dataset }, i) => ({ condition, dataset_type: dataset, ...byDataset[i]! })),
    condition_differences: await conditionDifferences(counted, conditions),
    alpha_models: alphaModels(counted, conditions),
    participants,
  };
}
