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

const count = z.number().int();
/** The dashboard's recruitment view (GET /api/admin/recruitment/progress). */
export const recruitmentProgressSchema = z.object({
  abandon_after_minutes: count,
  overall: z.object({ target: count.nullable(), completed: count, in_progress: count, abandoned: count, screened_out: count }),
  cells: z.array(
    z.object({
      dataset_type: z.string(),
      /** null: sessions admitted before quotas, whose condition their main start has not drawn yet. */
      condition: z.string().nullable(),
      target: count.nullable(),
      completed: count,
      in_progress: count,
      abandoned: count,
      screened_out: count,
      /** Completed above the target: sessions that came back after giving their place away. */
      over_target: count,
    }),
  ),
  funnel: z.array(z.object({ step: z.enum(['entered', 'consented', 'pre_done', 'main_done', 'survey_done']), sessions: count, left_before_next: count.nullable() })),
  median_minutes: z.object({
    total: z.number().nullable(),
    consent: z.number().nullable(),
    pre_experiment: z.number().nullable(),
    main_experiment: z.number().nullable(),
    post_survey: z.number().nullable(),
  }),
  completions_last_24h: count,
  completions_per_hour: z.number(),
  /** Completions still wanted (overall target, else the cells' targets summed when every cell has one); null without targets. */
  remaining: count.nullable(),
  /** When the remaining completions arrive at the last 24 hours' rate; null without a target or without completions. */
  projected_finish: z.string().nullable(),
  computed_at: z.string(),
});
