/**
 * Data-quality flags per participant, from SQL aggregates over their stored rows. A flag marks a
 * participant for a researcher's attention (badge, filter, export column) and lets the reliance
 * metrics leave them out on demand; nothing is ever deleted because of one. Thresholds live in
 * the study configuration (`qualityFlags`).
 */
import type { Db } from '../../db/client';
import {
  analyticsParticipants,
  bigFiveAnswers,
  failedUnderstandingTests,
  participantSignalRows,
  refreshParticipantSignals,
  straightliners,
  type GridSection,
} from '../../db/queries/analytics';
import { answeredQuestions, postSurvey } from '../../schemas/post-survey';
import { studyConfig } from '../../schemas/study';

import { QUALITY_FLAGS, type QualityFlag } from '../../schemas/quality-flags';

export { QUALITY_FLAGS, type QualityFlag };

const q = studyConfig.qualityFlags;

/** What each flag means, written once: the codebook, the dashboard and docs/dashboard-and-exports.md quote it. */
export const QUALITY_FLAG_DEFINITIONS: Record<QualityFlag, string> = {
  speeder: `median pre-experiment response time below ${q.speederMedianShare} × the median of all participants' medians`,
  straightliner: `the same answer to every item of a post-survey grid section (Big Five, locus of control or need for cognition; at least ${q.straightlineMinItems} items answered)`,
  bfi_inconsistent: `at least ${q.bfi.inconsistentPairs} of the five BFI-10 pairs differ by ${q.bfi.pairGap} or more on the 1–7 scale once the reversed item is turned around (8 − answer)`,
  long_run: `the same pre-experiment prediction for ${q.longRunLength} or more cases in a row, in the order answered`,
  many_resumes: `progress fetched to continue ${q.resumesAtLeast} or more times`,
  failed_understanding_tests: `failed the main experiment's understanding test ${q.failedUnderstandingTestsAtLeast} or more times`,
};

export type ParticipantQuality = {
  flags: QualityFlag[];
  medianPreResponseMs: number | null;
  longestSamePredictionRun: number | null;
  resumeCount: number;
  failedUnderstandingTests: number;
  bfiInconsistentPairs: number | null;
  straightlinedSections: GridSection[];
};

const GRID_SECTIONS: GridSection[] = ['bigfive', 'locus', 'cognition'];

/** Each grid section's scale items of its main scale (the most common maximum), from the instrument. */
function gridItems(section: GridSection): string[] {
  const scales = answeredQuestions(postSurvey.sections.find((s) => s.id === section)!).filter((x) => x.kind === 'scale');
  const byMax = new Map<number, string[]>();
  for (const item of scales) byMax.set(item.max, [...(byMax.get(item.max) ?? []), item.name]);
  return [...byMax.values()].sort((a, b) => b.length - a.length)[0] ?? [];
}

/** The BFI-10's five pairs: a factor's straight item and its reversed one. */
const BFI_PAIRS: [string, string][] = (() => {
  const items = answeredQuestions(postSurvey.sections.find((s) => s.id === 'bigfive')!).filter((x) => x.kind === 'scale');
  const byFactor = new Map<string, { straight?: string; reversed?: string }>();
  for (const item of items) {
    const entry = byFactor.get(item.factor ?? '') ?? {};
    if (item.reverse) entry.reversed = item.name;
    else entry.straight = item.name;
    byFactor.set(item.factor ?? '', entry);
  }
  return [...byFactor.values()].filter((p): p is { straight: string; reversed: string } => Boolean(p.straight && p.reversed)).map((p) => [p.straight, p.reversed]);
})();

/** Pairs answered inconsistently, or null without a complete BFI-10. */
export function bfiInconsistentPairs(answers: Record<string, unknown>): number | null {
  let inconsistent = 0;
  for (const [straight, reversed] of BFI_PAIRS) {
    const a = answers[straight];
    const b = answers[reversed];
    if (typeof a !== 'number' || typeof b !== 'number') return null;
    if (Math.abs(a - (8 - b)) >= q.bfi.pairGap) inconsistent++;
  }
  return inconsistent;
}

const median = (values: number[]) => {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

/**
 * The flags, computed once per request: the users list, the reliance report and every table of an
 * export that reads them share one computation (a request's `db` is its own object).
 */
const perRequest = new WeakMap<Db, Promise<Map<number, ParticipantQuality>>>();
export function qualityFlags(db: Db): Promise<Map<number, ParticipantQuality>> {
  let pending = perRequest.get(db);
  if (!pending) {
    pending = computeQualityFlags(db);
    perRequest.set(db, pending);
  }
  return pending;
}

async function computeQualityFlags(db: Db): Promise<Map<number, ParticipantQuality>> {
  // Only participants whose answers changed since the last call are recomputed.
  await refreshParticipantSignals(db, new Date().toISOString());
  const [people, signals, failed, bigFive, ...lines] = await Promise.all([
    analyticsParticipants(db),
    participantSignalRows(db),
    failedUnderstandingTests(db),
    bigFiveAnswers(db),
    ...GRID_SECTIONS.map((section) => straightliners(db, section, gridItems(section), q.straightlineMinItems)),
  ]);
  const medianOf = new Map(signals.flatMap((m) => (m.preMedianResponseMs === null ? [] : [[m.participantId, m.preMedianResponseMs] as const])));
  const runOf = new Map(signals.map((r) => [r.participantId, r.preLongestRun]));
  const failedOf = new Map(failed.map((f) => [f.participantId, f.failed]));
  const bfiOf = new Map(bigFive.map((b) => [b.participantId, bfiInconsistentPairs(b.answers)]));
  const studyMedian = median([...medianOf.values()]);
  const lined = new Map<number, GridSection[]>();
  lines.forEach((rows, i) => {
    for (const row of rows) lined.set(row.participant_id, [...(lined.get(row.participant_id) ?? []), GRID_SECTIONS[i]!]);
  });

  const result = new Map<number, ParticipantQuality>();
  for (const p of people) {
    const own = medianOf.get(p.id) ?? null;
    const quality: ParticipantQuality = {
      flags: [],
      medianPreResponseMs: own,
      longestSamePredictionRun: runOf.get(p.id) ?? null,
      resumeCount: p.resumeCount ?? 0,
      failedUnderstandingTests: failedOf.get(p.id) ?? 0,
      bfiInconsistentPairs: bfiOf.get(p.id) ?? null,
      straightlinedSections: lined.get(p.id) ?? [],
    };
    const raised: Record<QualityFlag, boolean> = {
      speeder: own !== null && studyMedian !== null && own < q.speederMedianShare * studyMedian,
      straightliner: quality.straightlinedSections.length > 0,
      bfi_inconsistent: (quality.bfiInconsistentPairs ?? 0) >= q.bfi.inconsistentPairs,
      long_run: (quality.longestSamePredictionRun ?? 0) >= q.longRunLength,
      many_resumes: quality.resumeCount >= q.resumesAtLeast,
      failed_understanding_tests: quality.failedUnderstandingTests >= q.failedUnderstandingTestsAtLeast,
    };
    quality.flags = QUALITY_FLAGS.filter((f) => raised[f]);
    result.set(p.id, quality);
  }
  return result;
}
