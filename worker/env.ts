import type { Db } from './db/client';

/** Secrets are not in wrangler.toml, so `wrangler types` cannot see them. */
type Secrets = {
  /** Admin password; locally from .dev.vars, in production from `wrangler secret put`. */
  ADMIN_PASSWORD?: string;
};

export type Bindings = Env & Secrets;

export type AppEnv = {
  Bindings: Bindings;
  Variables: { db: Db };
};
