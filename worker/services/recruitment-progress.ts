/**
 * The recruitment view: per dataset × condition cell, completed / in progress / abandoned against
 * its target; the drop-out funnel by phase; median times to complete and per phase; completions
 * per hour over the last day and the finish that rate projects. Counted from one row per person's
 * session (`recruitmentRows`), with the same rule for a place as admission (`holdsPlace`).
 */
import type { z } from 'zod';
import type { Db } from '../db/client';
import { recruitmentRows, type RecruitmentRow } from '../db/queries/recruitment';
import type { recruitmentProgressSchema } from '../schemas/recruitment';
import { enabledDatasets, studyConfig } from '../schemas/study';
import { recruitmentState, targetsInForce } from './recruitment';

type Progress = z.infer<typeof recruitmentProgressSchema>;
const HOUR_MS = 3_600_000;

/** The middle value (mean of the two middle ones), or null without values. */
export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const minutesBetween = (from: string | null, to: string | null) => (from && to ? (Date.parse(to) - Date.parse(from)) / 60_000 : null);
const known = (values: (number | null)[]) => values.filter((v): v is number => v !== null);

type Place = 'completed' | 'in_progress' | 'abandoned' | 'screened_out';
const placeOf = (r: RecruitmentRow, cutoff: string): Place =>
  r.post_survey_completed_at ? 'completed' : r.screened_out_at ? 'screened_out' : r.last_activity_at > cutoff ? 'in_progress' : 'abandoned';

export async function recruitmentProgress(db: Db, now: Date): Promise<Progress> {
  const [rows, state] = await Promise.all([recruitmentRows(db), recruitmentState(db)]);
  const targets = targetsInForce(state);
  const cutoff = new Date(now.getTime() - studyConfig.recruitment.abandonAfterMinutes * 60_000).toISOString();
  const conditions = studyConfig.conditions.map((c) => c.name);
  const count = (of: RecruitmentRow[], place: Place) => of.filter((r) => placeOf(r, cutoff) === place).length;

  // Every configured cell, and any other a stored session is in (a condition since removed, or none yet).
  const keys = new Map<string, { dataset: string; condition: string | null }>();
  for (const dataset of enabledDatasets()) for (const condition of conditions) keys.set(`${dataset}:${condition}`, { dataset, condition });
  for (const r of rows) keys.set(`${r.dataset_type}:${r.condition ?? ''}`, { dataset: r.dataset_type, condition: r.condition });
  const cells = [...keys.entries()].map(([key, { dataset, condition }]) => {
    const own = rows.filter((r) => r.dataset_type === dataset && r.condition === condition);
    const target = condition === null ? null : (targets.cellTargets[key] ?? targets.cellTarget);
    const completed = count(own, 'completed');
    return {
      dataset_type: dataset,
      condition,
      target,
      completed,
      in_progress: count(own, 'in_progress'),
      abandoned: count(own, 'abandoned'),
      screened_out: count(own, 'screened_out'),
      over_target: target !== null && completed > target ? completed - target : 0,
    };
  });

  const funnel = [
    { step: 'entered' as const, sessions: rows.length },
    { step: 'consented' as const, sessions: rows.filter((r) => r.consented_at).length },
    { step: 'pre_done' as const, sessions: rows.filter((r) => r.pre_completed_at).length },
    { step: 'main_done' as const, sessions: rows.filter((r) => r.main_completed_at).length },
    { step: 'survey_done' as const, sessions: rows.filter((r) => r.post_survey_completed_at).length },
  ].map((f, i, all) => ({ ...f, left_before_next: i + 1 < all.length ? f.sessions - all[i + 1]!.sessions : null }));

  const done = rows.filter((r) => r.post_survey_completed_at);
  const durations = {
    total: median(known(done.map((r) => minutesBetween(r.created_at, r.post_survey_completed_at)))),
    consent: median(known(done.map((r) => minutesBetween(r.created_at, r.consented_at)))),
    pre_experiment: median(known(done.map((r) => minutesBetween(r.consented_at, r.pre_completed_at)))),
    main_experiment: median(known(done.map((r) => minutesBetween(r.pre_completed_at, r.main_completed_at)))),
    post_survey: median(known(done.map((r) => minutesBetween(r.main_completed_at, r.post_survey_completed_at)))),
  };

  const dayAgo = new Date(now.getTime() - 24 * HOUR_MS).toISOString();
  const lastDay = done.filter((r) => r.post_survey_completed_at! > dayAgo).length;
  const perHour = lastDay / 24;
  const cellTargetsSet = cells.filter((c) => c.condition !== null).every((c) => c.target !== null);
  const wanted = targets.overallTarget ?? (cellTargetsSet ? cells.reduce((a, c) => a + (c.target ?? 0), 0) : null);
  const remaining = wanted === null ? null : Math.max(0, wanted - done.length);
  return {
    abandon_after_minutes: studyConfig.recruitment.abandonAfterMinutes,
    overall: {
      target: targets.overallTarget,
      completed: done.length,
      in_progress: count(rows, 'in_progress'),
      abandoned: count(rows, 'abandoned'),
      screened_out: count(rows, 'screened_out'),
    },
    cells,
    funnel,
    median_minutes: durations,
    completions_last_24h: lastDay,
    completions_per_hour: perHour,
    remaining,
    projected_finish:
      remaining === null ? null : remaining === 0 ? now.toISOString() : perHour > 0 ? new Date(now.getTime() + (remaining / perHour) * HOUR_MS).toISOString() : null,
    computed_at: now.toISOString(),
  };
}
