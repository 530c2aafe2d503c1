import { createMiddleware } from 'hono/factory';
import type { AppEnv } from '../env';
import { AppError } from '../errors';
import { inProgressMayContinue, recruitmentState } from '../services/recruitment';
import { isAdminPath, SAFE_METHODS } from './admin-auth';

/** A participant may always withdraw, whatever the study's state. */
const ALWAYS_OPEN = new Set(['/api/experiments/withdraw', '/api/admin/login', '/api/admin/logout']);

/**
 * A study closed without letting those in progress finish takes no more answers: every
 * participant write is refused with 409 `study_closed` (withdrawal excepted); administrators'
 * calls are not participants' writes.
 */
export const holdAnswersWhenClosed = createMiddleware<AppEnv>(async (c, next) => {
  const path = c.req.path.replace(/\/+$/, '');
  if (SAFE_METHODS.has(c.req.method) || isAdminPath(path) || ALWAYS_OPEN.has(path)) return next();
  if (!inProgressMayContinue(await recruitmentState(c.var.db))) {
    throw new AppError(409, 'study_closed', 'The study is closed: it takes no more answers. You may still withdraw.');
  }
  return next();
});
