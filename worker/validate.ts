import { zValidator } from '@hono/zod-validator';
import type { ValidationTargets } from 'hono';
import type { z } from 'zod';
import { AppError, issuesFromZod } from './errors';

/**
 * The only way routes read input: validates one part of the request with a zod schema and
 * turns failure into a 400 whose `detail` lists every issue.
 */
export const validate = <Target extends keyof ValidationTargets, Schema extends z.ZodType>(
  target: Target,
  schema: Schema,
) =>
  zValidator(target, schema, (result) => {
    if (!result.success) {
      throw new AppError(400, 'validation_failed', issuesFromZod(result.error));
    }
  });
