import type { Db } from './db/client';

/** What an admin call did, for the audit log the admin guard writes after it (`guardAdminAreas`). */
export type AuditMark = { action: string; targetType?: string; targetId?: string; details?: Record<string, unknown> };

/** Env comes from `wrangler types` (bindings, vars, and the secret names in secrets.env.example). */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    db: Db;
    audit?: AuditMark;
    /** Set by a route when the call served a session's own case set (the refusal limiter lets it pass uncounted). */
    ownCaseSet?: boolean;
    /** Set by a route that answers 200 for an unknown participant ID (a lookup that found nothing): the refusal limiter counts it as a refusal. */
    idMiss?: boolean;
  };
};
