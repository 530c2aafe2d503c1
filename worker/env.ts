import type { Db } from './db/client';

/** Env comes from `wrangler types` (bindings, vars, and the secret names in secrets.env.example). */
export type AppEnv = {
  Bindings: Env;
  Variables: { db: Db };
};
