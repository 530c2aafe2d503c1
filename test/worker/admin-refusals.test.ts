/**
 * A refused administrator request stores nothing (issue #63, point 2): every admin route that
 * writes, asked something it refuses past its input's validation (a name without its
 * pre-experiment, an unknown id, a model that does not fit, a dataset that is not there), leaves
 * the database exactly as it was. A new admin write route must be added here, or the suite fails.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { SAFE_METHODS, isAdminPath } from '../../worker/middleware/admin-auth';
import { errorBodySchema } from '../../worker/schemas/api';
import { adminCookie, api, appRoutes } from '../helpers/api';
import { refusedAdminWrites } from '../helpers/admin-refused-writes';
import { fingerprinter } from '../helpers/db-fingerprint';
import { newParticipantId, seedCompasStudy } from '../helpers/study-factories';

let cookie: string;
/** A synthetic participant with a few pre-experiment answers (too few for the main experiment), registered with COMPAS. */
const partial = `test_partial_${crypto.randomUUID().slice(0, 8)}`;

const REFUSED = refusedAdminWrites(partial);

beforeAll(async () => {
  await seedCompasStudy();
  cookie = await adminCookie();
  const made = await api(`/api/admin/register-user-responses?participant_name=${partial}&dataset_type=compas&num_responses=3`, { method: 'POST', headers: { Cookie: cookie } });
  expect(made.status).toBe(200);
});

describe('a refused admin request stores nothing', () => {
  it('lists every admin route that writes', () => {
    const writes = appRoutes()
      .filter((r) => !SAFE_METHODS.has(r.method) && (isAdminPath(r.path) || r.path.startsWith('/api/admin/')))
      .map((r) => `${r.method} ${r.path.replace(/\/+$/, '')}`);
    expect(writes.filter((w) => !(w in REFUSED))).toEqual([]);
  });

  it.each(Object.keys(REFUSED).filter((k) => !k.endsWith('/logout')))('%s: refused, nothing stored', async (route) => {
    const refused = REFUSED[route]!();
    const fingerprint = await fingerprinter();
    const before = await fingerprint();
    const res = await api(refused.path, {
      method: route.split(' ')[0],
      headers: { Cookie: cookie, ...(refused.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: refused.body === undefined ? undefined : JSON.stringify(refused.body),
    });
    const text = await res.text();
    expect(res.status, text).toBe(refused.status);
    expect(errorBodySchema.parse(JSON.parse(text)).detail).toBeTruthy();
    expect(await fingerprint(), `${route}: a refused call changed the database`).toBe(before);
  });

  it('the issue’s example: main responses for a name that never did the pre-experiment leave no participant, session, consent or assignment', async () => {
    const name = `test_x${newParticipantId().toLowerCase()}`;
    const res = await api(`/api/admin/register-main-experiment-responses?participant_name=${name}&dataset_type=compas&num_responses=2`, { method: 'POST', headers: { Cookie: cookie } });
    expect(res.status).toBe(409);
    expect(errorBodySchema.parse(await res.json()).code).toBe('pre_experiment_incomplete');
    const { env } = await import('cloudflare:workers');
    for (const [table, column] of [
      ['participants', 'participant_code'],
      ['sessions', 'session_id'],
      ['dataset_assignments', 'session_id'],
      ['consent_records', 'session_id'],
    ] as const) {
      expect(await env.DB.prepare(`select count(*) as n from ${table} where ${column} = ?`).bind(name).first(), table).toEqual({ n: 0 });
    }
  });
});
