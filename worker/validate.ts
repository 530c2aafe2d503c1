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

/**
 * `validate('json', schema)` for routes whose body is optional (the spec's query form of a POST):
 * an empty body, even one labelled JSON as many HTTP clients send it, validates as `{}`.
 */
export const validateOptionalJson = <Schema extends z.ZodType>(schema: Schema) => {
  const inner = validate('json', schema);
  const middleware: typeof inner = async (c, next) => {
    if ((await c.req.text()).trim() === '') {
      c.req.addValidatedData('json', {});
      await next();
      return;
    }
    return inner(c, next);
  };
  return middleware;
};
