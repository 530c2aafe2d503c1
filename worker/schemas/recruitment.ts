/** Recruitment: whether the study admits newcomers, as the dashboard sets it and the entry page reads it. */
import { z } from 'zod';
import { recruitmentTargetsSchema } from './study';

export const RECRUITMENT_STATUS_VALUES = ['open', 'paused', 'closed'] as const;

export const recruitmentUpdateSchema = z
  .object({
    status: z.enum(RECRUITMENT_STATUS_VALUES),
    /** Closed only: whether those already in the study may finish it (default true). */
    in_progress_may_finish: z.boolean().default(true),
    /** Quotas replacing the study configuration's; null goes back to those; left out keeps the stored ones. */
    targets: recruitmentTargetsSchema.nullable().optional(),
  })
  .strict();

export const recruitmentStateSchema = z.object({
  status: z.enum(RECRUITMENT_STATUS_VALUES),
  in_progress_may_finish: z.boolean(),
  changed_at: z.string().nullable(),
  /** The dashboard's targets (null: the study configuration's are in force). */
  targets: recruitmentTargetsSchema.nullable(),
  targets_in_force: recruitmentTargetsSchema,
  abandon_after_minutes: z.number().int(),
});

/** What the entry page needs: whether a newcomer may start, and where a Prolific participant returns to when not. */
export const publicRecruitmentSchema = z.object({
  status: z.enum(RECRUITMENT_STATUS_VALUES),
  /** Open, but every cell has reached its target (the study then behaves as closed). */
  full: z.boolean(),
  accepting_newcomers: z.boolean(),
  in_progress_may_finish: z.boolean(),
  prolific_return_url: z.string().nullable(),
});
