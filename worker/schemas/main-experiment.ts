/**
 * Wire shapes of the main experiment (part 2 §3 and §7): starting it with the session's stored
 * case set, and the alignment alpha of each case.
 */
import { z } from 'zod';
import { caseSchema, sessionIdSchema } from './experiment';
import { studyConfig } from './study';

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const numCases = z.coerce.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases);

/**
 * `POST /api/experiments/main/start?session_id&num_cases[&participant_id]` (the spec's query form);
 * the same fields may come as a JSON body instead. `debug` / `tutorial` skip the check that the
 * pre-experiment is complete, as the spec's `?debug=true` and `?tutorial=true` do.
 */
export const mainStartQuerySchema = z.object({
  session_id: sessionIdSchema.optional(),
  num_cases: numCases.optional(),
  participant_id: sessionIdSchema.optional(),
  debug: flag.optional(),
  tutorial: flag.optional(),
});

export const mainStartBodySchema = z.object({
  session_id: sessionIdSchema.optional(),
  num_cases: z.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases).optional(),
  participant_id: sessionIdSchema.optional(),
  debug: z.boolean().optional(),
  tutorial: z.boolean().optional(),
});

/** A main-experiment case as the participant gets it: no ground truth, with its alignment alpha. */
export const mainCaseSchema = caseSchema.extend({ alignment_alpha: z.number().min(0).max(1) });
export type MainCase = z.infer<typeof mainCaseSchema>;

export const mainStartResponseSchema = z.object({
  success: z.literal(true),
  session_id: z.string(),
  case_set: z.array(mainCaseSchema),
  /** The set existed before this call (a resume or a retried start). */
  is_resumed: z.boolean(),
  /** Integrated responses already stored; the next case is `completed_cases + 1`. */
  completed_cases: z.number().int(),
  total_cases: z.number().int(),
});

export const alignmentAlphaParamSchema = z
  .object({
    sessionId: sessionIdSchema,
    caseIndex: z.coerce.number().int().min(0).max(studyConfig.mainExperiment.resumeRequestCases - 1),
    total: z.coerce.number().int().min(1).max(studyConfig.mainExperiment.resumeRequestCases),
  })
  .refine((p) => p.caseIndex < p.total, { message: 'caseIndex must be below total', path: ['caseIndex'] });

export const alignmentAlphaResponseSchema = z.object({
  session_id: z.string(),
  case_index: z.number().int(),
  total: z.number().int(),
  alpha: z.number().min(0).max(1),
  /** `stored`: fixed with the session's case set; `schedule`: the same schedule before the set exists; `fallback`: the spec's 0.5. */
  source: z.enum(['stored', 'schedule', 'fallback']),
});
