import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ZodError, type z } from 'zod';
import type { ErrorBody, validationIssueSchema } from './schemas/api';

export type ValidationIssue = z.infer<typeof validationIssueSchema>;

/**
 * The one error type routes and services throw. `code` is stable for clients and tests; `detail`
 * is what the spec's clients show.
 */
export class AppError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly code: string,
    readonly detail: ErrorBody['detail'],
  ) {
    super(status, { message: typeof detail === 'string' ? detail : 'Validation failed' });
  }
}

export const notFound = (detail: string) => new AppError(404, 'not_found', detail);
export const badRequest = (code: string, detail: string) => new AppError(400, code, detail);
export const conflict = (code: string, detail: string) => new AppError(409, code, detail);

/** Turns zod issues into the `[{msg, loc}]` detail the spec's clients list field by field. */
export function issuesFromZod(error: z.core.$ZodError): ValidationIssue[] {
  return error.issues.map((issue) => ({
    msg: issue.message,
    loc: issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
  }));
}

/** Maps every thrown value to one JSON error shape; a 500 never carries internal messages. */
export function handleError(err: Error, c: Context): Response {
  let status: ContentfulStatusCode = 500;
  let body: ErrorBody = { detail: 'Internal server error', code: 'internal_error' };
  if (err instanceof AppError) {
    status = err.status as ContentfulStatusCode;
    body = { detail: err.detail, code: err.code };
  } else if (err instanceof ZodError) {
    status = 400;
    body = { detail: issuesFromZod(err), code: 'validation_failed' };
  } else if (err instanceof HTTPException) {
    // Thrown by Hono itself, e.g. malformed JSON in a request body.
    status = err.status as ContentfulStatusCode;
    body = { detail: err.message || `HTTP ${err.status}`, code: status >= 500 ? 'internal_error' : 'bad_request' };
  } else {
    console.error('unhandled error', c.req.method, c.req.path, err);
  }
  return c.json(body, status);
}
