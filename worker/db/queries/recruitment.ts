/**
 * What the recruitment view reads: every person's session (synthetic participants hold no place)
 * with its cell, phase times and last activity, one row each; the view's figures are counted
 * from these in `services/recruitment-progress.ts`.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../client';
import { lastActivity } from './sessions';

export type RecruitmentRow = {
  dataset_type: string;
  condition: string | null;
  created_at: string;
  consented_at: string | null;
  pre_completed_at: string | null;
  main_started_at: string | null;
  main_completed_at: string | null;
  post_survey_completed_at: string | null;
  screened_out_at: string | null;
  last_activity_at: string;
};

export const recruitmentRows = (db: Db) =>
  db.all<RecruitmentRow>(sql`
    select s.dataset_type, s.condition, s.created_at, s.consented_at, s.pre_completed_at, s.main_started_at, s.main_completed_at,
           s.post_survey_completed_at, s.screened_out_at, ${lastActivity} as last_activity_at
    from sessions s join participants p on p.id = s.participant_id
    where p.origin = 'participant'`);
