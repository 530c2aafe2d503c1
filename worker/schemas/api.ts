/**
 * Wire shapes shared by the Worker and the SPA. Route tests parse responses with these schemas,
 * and the SPA reads errors through `errorBodySchema`.
 */
import { z } from 'zod';

/** One validation problem; `loc` is the path of the offending field. */
export const validationIssueSchema = z.object({
  msg: z.string(),
  loc: z.array(z.union([z.string(), z.number()])),
});

/**
 * Every error the API returns. The spec's clients read `detail`: a string, or for validation
 * errors an array of issues with `msg`.
 */
export const errorBodySchema = z.object({
  detail: z.union([z.string(), z.array(validationIssueSchema)]),
  code: z.string(),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

export const componentStateSchema = z.enum(['connected', 'disconnected']);
export const mlPipelineStateSchema = z.enum(['ready', 'warning', 'not_loaded', 'error']);

/**
 * GET /api/status. `redis` is kept for the spec's clients; this stack has no cache server, so it
 * honestly reports `not_used`. `storage` is the R2 round trip.
 */
export const statusResponseSchema = z.object({
  api: z.literal('healthy'),
  database: componentStateSchema,
  storage: componentStateSchema,
  redis: z.literal('not_used'),
  ml_pipeline: mlPipelineStateSchema,
  ml_models: z.record(z.string(), z.enum(['ready', 'missing'])),
  /** Whether the study admits newcomers (the dashboard's recruitment control). */
  recruitment: z.enum(['open', 'paused', 'closed']),
  environment: z.string(),
  checked_at: z.string(),
});
export type StatusResponse = z.infer<typeof statusResponseSchema>;

/**
 * GET /api/status/environment: whether this copy runs as production, and whether this caller may
 * use the debug views (everyone in development, administrators in production).
 */
export const environmentResponseSchema = z.object({
  environment: z.string(),
  production: z.boolean(),
  debug_tools: z.boolean(),
});
