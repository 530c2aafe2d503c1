/**
 * Where production and development differ, and nowhere else. `ENVIRONMENT` comes from
 * wrangler.toml: "development" for `npm start`, "production" for every copy `npm run deploy`
 * puts online (staging included), so a rehearsal behaves as the real study will.
 */
import type { Context } from 'hono';
import type { AppEnv } from './env';
import { hasAdminSession } from './middleware/admin-auth';

export const isProduction = (env: Pick<Env, 'ENVIRONMENT'>) => env.ENVIRONMENT === 'production';

/**
 * Debug and tutorial bypasses (skipping the pre-experiment), the debug views and the error test
 * page: anyone's in development, only an administrator's in production, where a bypass would let
 * a paid participant skip the work.
 */
export async function debugToolsAllowed(c: Context<AppEnv>): Promise<boolean> {
  return !isProduction(c.env) || (await hasAdminSession(c));
}
