/**
 * The reliance metrics and quality flags as export tables: the per-participant table and the
 * per-alpha and per-dataset tables the dashboard shows, with the same numbers (both read
 * `relianceReport`). Their columns carry each metric's formula, so the codebook defines them.
 */
import { studyConfig } from '../../schemas/study';
import { describeCondition } from '../conditions';
import type { Column, ExportFilter, ExportTable } from '../exports/tables';
import { QUALITY_FLAG_DEFINITIONS, QUALITY_FLAGS } from './quality-flags';
import { CALIBRATION_FORMULA, LEAN_FORMULA, RELIANCE_METRICS, relianceReport, type GroupSummary, type ParticipantRelianceRow, type RelianceReport } from './reliance';

const relianceOptionsOf = (filter: ExportFilter) => ({ excludeFlagged: filter.excludeFlagged ?? false, includeSynthetic: filter.includeSynthetic ?? false });

const FLAGS_CODING = `semicolon-separated, empty when none: ${QUALITY_FLAGS.map((f) => `${f} = ${QUALITY_FLAG_DEFINITIONS[f]}`).join('; ')}`;

export const qualityFlagsColumn = <R>(flags: (row: R) => string[] | undefined): Column<R> => ({
  name: 'quality_flags',
  type: 'text',
  meaning: 'Data-quality flags raised for the participant (nothing is deleted because of one)',
  coding: FLAGS_CODING,
  value: (r) => (flags(r) ?? []).join(';'),
});

const metricColumns = <R>(value: (row: R, id: string) => number | null): Column<R>[] =>
  RELIANCE_METRICS.map((m) => ({ name: m.id, type: 'number', meaning: `${m.label}: ${m.formula}`, units: m.units, value: (r: R) => value(r, m.id) }));

export const relianceParticipantsTable: ExportTable<ParticipantRelianceRow> = {
  name: 'reliance-participants',
  description: "One row per participant with main-experiment trials: the reliance metrics over their own trials, calibration and the data-quality evidence.",
  columns: [
    { name: 'user_id', type: 'integer', meaning: "Participant's numeric id", value: (r) => r.user_id },
    { name: 'user_name', type: 'text', meaning: 'Participant ID', value: (r) => r.user_name },
    { name: 'dataset_type', type: 'category', meaning: 'Dataset', value: (r) => r.dataset_type },
    { name: 'trials', type: 'integer', meaning: 'Completed main-experiment trials with every judgement', value: (r) => r.trials },
    { name: 'included', type: 'boolean', meaning: 'Counted in the group figures of this export (false: flagged and excluded on request)', coding: 'true or false', value: (r) => r.included },
    ...metricColumns<ParticipantRelianceRow>((r, id) => r.metrics[id] ?? null),
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
    const report = await relianceReport(db, relianceOptionsOf(filter));
    yield filter.userName ? report.participants.filter((p) => p.user_name === filter.userName) : report.participants;
  },
};

type GroupRow = GroupSummary & { group: string; kind?: string; condition?: string };
const groupColumns = (key: string, meaning: string, kindColumn: Column<GroupRow>[] = []): Column<GroupRow>[] => [
  ...kindColumn,
  { name: key, type: 'text', meaning, value: (r) => r.group },
  { name: 'participants', type: 'integer', meaning: 'Participants with trials in the group', value: (r) => r.participants },
  { name: 'trials', type: 'integer', meaning: 'Trials in the group', value: (r) => r.trials },
  {
    name: 'bars_lean_with_ai',
    type: 'number',
    meaning: `Explanations leaning with the AI: ${LEAN_FORMULA} (pooled over the group's trials)`,
    units: 'share 0–1',
    value: (r) => r.bars_lean_with_ai.rate,
  },
  ...RELIANCE_METRICS.flatMap((m): Column<GroupRow>[] => [
    { name: `${m.id}_mean`, type: 'number', meaning: `${m.label}: mean over participants of their own value (${m.formula})`, units: m.units, value: (r) => r.metrics[m.id]?.mean ?? null },
    { name: `${m.id}_ci_low`, type: 'number', meaning: `${m.label}: lower end of the 95% t-interval of that mean (participants as the unit)`, units: m.units, value: (r) => r.metrics[m.id]?.ci_low ?? null },
    { name: `${m.id}_ci_high`, type: 'number', meaning: `${m.label}: upper end of the 95% t-interval`, units: m.units, value: (r) => r.metrics[m.id]?.ci_high ?? null },
    { name: `${m.id}_pooled`, type: 'number', meaning: `${m.label} over all the group's trials pooled`, units: m.units, value: (r) => r.metrics[m.id]?.pooled ?? null },
  ]),
];

/** The between-subject condition column, each condition described in the codebook (a session from before conditions ran the spec's design). */
export const conditionColumn = <R>(
  value: (r: R) => unknown,
  meaning = 'Between-subject condition (study configuration conditions[].name), drawn when the main experiment started; empty before',
): Column<R> => ({
  name: 'condition',
  type: 'category',
  meaning,
  get coding() {
    return studyConfig.conditions.map((c) => `${c.name} = ${describeCondition(c)}`).join('; ');
  },
  value,
});

const CONDITION_OF_TRIALS = 'Between-subject condition of the trials (study configuration conditions[].name)';

export const relianceByAlphaTable: ExportTable<GroupRow> = {
  name: 'reliance-by-alpha',
  description:
    'The reliance metrics per condition and explanation shown: within each condition, each alpha of the human-aligned explanations, the AI-only fallbacks apart, the prediction alone, or no AI (participants as the unit, 95% t-intervals). Synthetic participants and bypassed sessions are left out unless the export asked for them.',
  columns: groupColumns('alignment_alpha', 'Alpha of the explanation shown (empty for the other groups)', [
    conditionColumn<GroupRow>((r) => r.condition ?? null, CONDITION_OF_TRIALS),
    {
      name: 'explanation_kind',
      type: 'category',
      meaning: 'What the group of trials showed',
      coding:
        "human_aligned = the alpha mix (alpha 1 = the AI's own shares); ai_only = the AI's own explanation shown because the participant had no usable model, whatever alpha was scheduled; prediction_only = the AI's prediction without bars; no_ai = nothing of the AI",
      value: (r) => r.kind,
    },
  ]),
  async *pages(db, filter) {
    if (filter.userName) return;
    const report = await relianceReport(db, relianceOptionsOf(filter));
    yield report.by_alpha.map((g) => ({ ...g, kind: g.explanation_kind, group: g.alignment_alpha === null ? '' : String(g.alignment_alpha) }));
  },
};

/** The reliance metrics per group of one report's (condition, dataset). */
const groupTable = (name: string, description: string, key: string, meaning: string, groups: (r: RelianceReport) => GroupRow[]): ExportTable<GroupRow> => ({
  name,
  description,
  columns: groupColumns(key, meaning),
  async *pages(db, filter) {
    if (filter.userName) return;
    yield groups(await relianceReport(db, relianceOptionsOf(filter)));
  },
});

export const relianceByConditionTable = groupTable(
  'reliance-by-condition',
  'The reliance metrics per between-subject condition (participants as the unit, 95% t-intervals); each metric over the trials it is defined on (see its formula).',
  'condition',
  CONDITION_OF_TRIALS,
  (r) => r.by_condition.map((g) => ({ ...g, group: g.condition })),
);

export const relianceByDatasetTable = groupTable(
  'reliance-by-dataset',
  'The reliance metrics per dataset (participants as the unit, 95% t-intervals).',
  'dataset_type',
  'Dataset of the trials',
  (r) => r.by_dataset.map((g) => ({ ...g, group: g.dataset_type })),
);
