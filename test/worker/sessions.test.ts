import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import {
  assignmentStatisticsSchema,
  caseSchema,
  caseSetResponseSchema,
  datasetTypeResponseSchema,
  sessionDetailsSchema,
  sessionInfoSchema,
  sessionResponseSchema,
} from '../../worker/schemas/experiment';
import { api, callUntilLimited, postJson, uniqueClientIp } from '../helpers/api';
import { newParticipantId, seedCompasCases } from '../helpers/study-factories';

beforeAll(async () => {
  await seedCompasCases();
});

describe('POST /api/experiments/sessions', () => {
  it('tells exactly one of two simultaneous requests for a new ID that it created the participant', async () => {
    for (let trial = 0; trial < 20; trial++) {
      const id = newParticipantId();
      const datasets = trial % 2 ? ['compas', 'adult_income'] : ['compas', 'compas'];
      const responses = await Promise.all(datasets.map((d) => postJson('/api/experiments/sessions', { participant_name: id, dataset_type: d, new_participant: true })));
      const statuses = responses.map((r) => r.status).sort();
      expect(statuses, `trial ${trial}`).toEqual([201, 409]);
      const winner = sessionResponseSchema.parse(await responses.find((r) => r.status === 201)!.json());
      // The one told it created the participant is told its own dataset.
      expect(datasets).toContain(winner.dataset_type);
      const stored = await api(`/api/experiments/sessions/${id}`);
      expect(sessionInfoSchema.parse(await stored.json()).dataset_type).toBe(winner.dataset_type);
    }
  });

  it('tells the creating request again that it created the participant when it is resent after a lost answer, and no other', async () => {
    const id = newParticipantId();
    const body = { participant_name: id, dataset_type: 'compas', new_participant: true, request_id: 'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6' };
    const first = await postJson('/api/experiments/sessions', body);
    expect(first.status).toBe(201);
    const created = sessionResponseSchema.parse(await first.json());
    // The same request, resent (its answer never arrived), alone and twice at once.
    for (const res of [await postJson('/api/experiments/sessions', body), ...(await Promise.all([1, 2].map(() => postJson('/api/experiments/sessions', body))))]) {
      expect(res.status).toBe(201);
      expect(sessionResponseSchema.parse(await res.json())).toEqual(created);
    }
    // Another request for the same ID, or one without a request ID, is someone else.
    expect((await postJson('/api/experiments/sessions', { ...body, request_id: 'ffffffffffffffffffffffffffffffff' })).status).toBe(409);
    expect((await postJson('/api/experiments/sessions', { ...body, request_id: undefined })).status).toBe(409);
    const { results } = await env.DB.prepare('select count(*) as n from participants where participant_code = ?').bind(id).all<{ n: number }>();
    expect(results[0]!.n).toBe(1);
  });

  it.each(['short', 'has spaces in it here', 'x'.repeat(65), "'; DROP TABLE--0000"])('refuses %j as a request ID with 400, storing nothing', async (requestId) => {
    const id = newParticipantId();
    const res = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true, request_id: requestId });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    expect((await api(`/api/experiments/sessions/${id}`)).status).toBe(404);
  });

  it.each(['q', 'ABCDEFGHIJKLMNOPQRST', "'; DROP TABLE sessions;--", 'ab12cd34', ' AB12CD34'])('refuses %j as a participant ID with 400 and detail, storing nothing', async (name) => {
    const res = await postJson('/api/experiments/sessions', { participant_name: name, dataset_type: 'compas', new_participant: true });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    const rewritten = name.replace(/[^A-Za-z0-9]/g, '').toUpperCase();
    if (/^[A-Z0-9]{2,8}$/.test(rewritten)) {
      expect((await api(`/api/experiments/sessions/${rewritten}`)).status).toBe(404);
    }
  });

  it('creates a participant with a database-assigned numeric user id', async () => {
    const id = newParticipantId();
    const res = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    expect(res.status).toBe(201);
    const body = sessionResponseSchema.parse(await res.json());
    expect(body).toMatchObject({ session_id: id, dataset_type: 'compas', current_phase: 'consent', created: true });
    const other = sessionResponseSchema.parse(
      await (await postJson('/api/experiments/sessions', { participant_name: newParticipantId(), dataset_type: 'compas' })).json(),
    );
    expect(other.user_id).not.toBe(body.user_id);
  });

  it('is idempotent for a retried request of the same participant', async () => {
    const id = newParticipantId();
    const first = sessionResponseSchema.parse(await (await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' })).json());
    const again = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    expect(again.status).toBe(200);
    expect(sessionResponseSchema.parse(await again.json())).toMatchObject({ user_id: first.user_id, created: false });
  });

  it('answers 409 when a new participant draws an ID already in use', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    const clash = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    expect(clash.status).toBe(409);
    expect(errorBodySchema.parse(await clash.json()).code).toBe('participant_exists');
  });

  it('refuses to move a participant to another dataset', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const res = await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'adult_income' });
    expect(res.status).toBe(409);
    expect(errorBodySchema.parse(await res.json()).code).toBe('dataset_mismatch');
  });

  it.each([
    [{ participant_name: '!!!', dataset_type: 'compas' }, 'invalid session ID'],
    [{ participant_name: 'AB12CD34', dataset_type: 'iris' }, undefined],
    [{ dataset_type: 'compas' }, undefined],
  ])('rejects %o with 400 and detail', async (payload, message) => {
    const res = await postJson('/api/experiments/sessions', payload);
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    if (message) expect(body.detail).toEqual([expect.objectContaining({ msg: message })]);
  });
});

describe('GET /api/experiments/sessions/{sessionId}', () => {
  it('returns session info, details and dataset type', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info).toMatchObject({ session_id: id, dataset_type: 'compas', pre_experiment_count: 0, consented: false, user_model_status: 'not_trained' });
    const details = sessionDetailsSchema.parse(await (await api(`/api/experiments/sessions/${id}/details`)).json());
    expect(details.dataset_display_name).toBe('COMPAS (recidivism)');
    const type = datasetTypeResponseSchema.parse(await (await api(`/api/experiments/sessions/${id}/dataset-type`)).json());
    expect(type).toEqual({ dataset_type: 'compas', is_confirmed: true });
  });

  it('answers 404 for an unknown ID (the spec reads it as "new")', async () => {
    const res = await api(`/api/experiments/sessions/${newParticipantId()}/dataset-type`);
    expect(res.status).toBe(404);
    errorBodySchema.parse(await res.json());
  });

  it('rejects a malformed session ID with 400', async () => {
    const res = await api('/api/experiments/sessions/bad%20id!');
    expect(res.status).toBe(400);
  });

  it.each([
    // Opening a session for a new ID is an ID lookup (middleware/id-lookups.ts): every call counts, before it writes.
    ['creating sessions', 120, (id: string) => ['/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true }] as const],
    // Spread over the datasets, so the balance tests below start from near-equal counts.
    ['assigning datasets', 300, (id: string, i: number) => ['/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: (['compas', 'adult_income', 'speed_dating'] as const)[i % 3], created_by: 'system' }] as const],
    // Consent to an unknown ID is a lookup that found nothing.
    ['submitting consent', 120, (id: string) => ['/api/consent/submit', { session_id: id, consent_items: {} }] as const],
    // An unknown ID's refusal is an ID lookup that found nothing: the shared lookup limit comes first.
    ['training a participant model', 120, (id: string) => ['/api/user-model/train', { session_id: id, dataset_type: 'compas' }] as const],
  ])('throttles %s per client (%i a minute), whatever the answers were', async (_name, limit, call) => {
    const ip = uniqueClientIp();
    const statuses = await callUntilLimited(limit, (i) => {
      const [path, body] = call(newParticipantId(), i);
      return postJson(path, body, { 'CF-Connecting-IP': ip });
    });
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(limit);
  });

  it('throttles ID lookups per client', async () => {
    const ip = uniqueClientIp();
    const statuses = await callUntilLimited(120, () => api(`/api/experiments/sessions/${newParticipantId()}/dataset-type`, { headers: { 'CF-Connecting-IP': ip } }));
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.indexOf(429)).toBeGreaterThanOrEqual(120);
  });
});

async function assignmentCounts(): Promise<Record<string, number>> {
  const stats = assignmentStatisticsSchema.parse(
    ((await (await api('/api/experiments/dataset-assignment/statistics')).json()) as { statistics: unknown }).statistics,
  );
  return Object.fromEntries(Object.entries(stats.datasets).map(([d, s]) => [d, s.assigned]));
}

/** Tops every dataset up to the largest count with explicit assignments; returns that count (slow after many assignments, hence the longer timeouts). */
async function levelAssignments(): Promise<number> {
  const counts = await assignmentCounts();
  const level = Math.max(...Object.values(counts));
  for (const [dataset_type, n] of Object.entries(counts)) {
    for (let i = n; i < level; i++) {
      await postJson('/api/experiments/dataset-assignment/explicit', { session_id: newParticipantId(), dataset_type, created_by: 'system' });
    }
  }
  expect(await assignmentCounts()).toEqual({ adult_income: level, speed_dating: level, compas: level });
  return level;
}

describe('dataset assignment', () => {
  it('records an explicit assignment once and refuses a different one', async () => {
    const id = newParticipantId();
    const first = await postJson('/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: 'speed_dating', created_by: 'user_query_parameter' });
    expect(first.status).toBe(200);
    const same = await postJson('/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: 'speed_dating', created_by: 'user_query_parameter_on_reload' });
    expect(same.status).toBe(200);
    const other = await postJson('/api/experiments/dataset-assignment/explicit', { session_id: id, dataset_type: 'compas', created_by: 'system' });
    expect(other.status).toBe(409);
    const type = datasetTypeResponseSchema.parse(await (await api(`/api/experiments/sessions/${id}/dataset-type`)).json());
    expect(type).toEqual({ dataset_type: 'speed_dating', is_confirmed: false });
  });

  it('rejects an unknown created_by with 400', async () => {
    const res = await postJson('/api/experiments/dataset-assignment/explicit', { session_id: newParticipantId(), dataset_type: 'compas', created_by: 'hacker' });
    expect(res.status).toBe(400);
  });

  it('keeps balanced assignments within one of each other, in-progress ones included', async () => {
    // Start from equal counts whatever earlier tests of this file left, so the outcome is exact.
    const level = await levelAssignments();
    const assigned = await Promise.all(
      Array.from({ length: 12 }, async () => {
        const res = await postJson('/api/experiments/dataset-assignment/balanced', { session_id: newParticipantId() });
        return ((await res.json()) as { dataset_type: string }).dataset_type;
      }),
    );
    expect(assigned.filter((d) => d === 'adult_income')).toHaveLength(4);
    expect(assigned.filter((d) => d === 'speed_dating')).toHaveLength(4);
    expect(assigned.filter((d) => d === 'compas')).toHaveLength(4);
    const after = await assignmentCounts();
    expect(after).toEqual({ adult_income: level + 4, speed_dating: level + 4, compas: level + 4 });
  }, 30_000);

  it('keeps a balanced assignment stable for the same participant', async () => {
    const id = newParticipantId();
    const a = (await (await postJson('/api/experiments/dataset-assignment/balanced', { session_id: id })).json()) as { dataset_type: string };
    const b = (await (await postJson('/api/experiments/dataset-assignment/balanced', { session_id: id })).json()) as { dataset_type: string };
    expect(b.dataset_type).toBe(a.dataset_type);
  });

  it('suggests the least used dataset without storing anything', async () => {
    const level = await levelAssignments();
    for (const dataset_type of ['adult_income', 'compas'] as const) {
      await postJson('/api/experiments/dataset-assignment/explicit', { session_id: newParticipantId(), dataset_type, created_by: 'system' });
    }
    const res = await api('/api/experiments/dataset-assignment/balanced');
    expect(((await res.json()) as { dataset_type: string }).dataset_type).toBe('speed_dating');
    expect(await assignmentCounts()).toEqual({ adult_income: level + 1, speed_dating: level, compas: level + 1 });
  }, 30_000);
});

describe('cases and case sets', () => {
  it('serves one case without its ground truth', async () => {
    const res = await api('/api/experiments/cases/compas_pre_001');
    expect(res.status).toBe(200);
    const body = await res.json();
    const parsed = caseSchema.parse(body);
    expect(parsed.features).toHaveProperty('priors_count');
    expect(body).not.toHaveProperty('ground_truth');
  });

  it('answers 404 for an unknown case and 400 for a malformed id', async () => {
    expect((await api('/api/experiments/cases/compas_pre_999')).status).toBe(404);
    expect((await api('/api/experiments/cases/..%2Fetc')).status).toBe(400);
  });

  it('draws a random set of the requested size (default 5)', async () => {
    const set = caseSetResponseSchema.parse(await (await api('/api/experiments/case-sets/random?dataset_type=compas')).json());
    expect(set.case_set).toHaveLength(5);
    const ten = caseSetResponseSchema.parse(await (await api('/api/experiments/case-sets/random?dataset_type=compas&num_cases=10')).json());
    expect(new Set(ten.case_set.map((c) => c.case_id)).size).toBe(10);
    expect((await api('/api/experiments/case-sets/random?num_cases=0')).status).toBe(400);
  });

  it("stores a participant's pre-experiment order so it is the same on every request", async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const first = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200`)).json());
    const again = caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200`)).json());
    expect(first.case_set).toHaveLength(200);
    expect(again.case_set.map((c) => c.case_id)).toEqual(first.case_set.map((c) => c.case_id));
    expect(first.case_set.map((c) => c.case_number)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    const pool = first.case_set.map((c) => c.case_id).sort();
    expect(pool[0]).toBe('compas_pre_001');
    // Shuffled per participant: not the pool order.
    expect(first.case_set.map((c) => c.case_id)).not.toEqual(pool);
  });

  it('serves the tutorial cases', async () => {
    const set = caseSetResponseSchema.parse(await (await api('/api/experiments/case-sets/fixed?experiment_type=tutorial&dataset_type=compas')).json());
    expect(set.case_set.map((c) => c.case_id)).toEqual(['tutorial_compas', 'tutorial_compas_2']);
  });
});

describe('POST /api/experiments/start', () => {
  it('returns the participant session for a known participant', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const res = await api(`/api/experiments/start?participant_name=${id}&experiment_type=pre_experiment`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(sessionResponseSchema.parse(await res.json())).toMatchObject({ session_id: id, dataset_type: 'compas', created: false });
  });

  it('answers 404 for an unknown participant and 400 for a bad experiment type', async () => {
    expect((await api(`/api/experiments/start?participant_name=${newParticipantId()}`, { method: 'POST' })).status).toBe(404);
    expect((await api(`/api/experiments/start?participant_name=AB12&experiment_type=bogus`, { method: 'POST' })).status).toBe(400);
  });
});

describe('GET /api/experiments/case-sets/fixed validation', () => {
  it.each(['num_cases=0', 'num_cases=201', 'experiment_type=main', 'dataset_type=iris', 'participant_id=bad%20id'])('rejects %s with 400', async (query) => {
    const res = await api(`/api/experiments/case-sets/fixed?${query}`);
    expect(res.status).toBe(400);
    errorBodySchema.parse(await res.json());
  });
});

describe('balance of dataset assignments', () => {
  const statistics = async () => assignmentStatisticsSchema.parse(((await (await api('/api/experiments/dataset-assignment/statistics')).json()) as { statistics: unknown }).statistics);

  it('never counts an old assignment nobody took up, but counts a fresh one and every one with a session', async () => {
    const before = await statistics();
    const old = new Date(Date.now() - 60 * 60 * 1000).toISOString();
    for (let i = 0; i < 30; i++) {
      await env.DB.prepare("insert into dataset_assignments (session_id, dataset_type, created_by, is_confirmed, created_at, updated_at) values (?, 'compas', 'system', 0, ?, ?)")
        .bind(newParticipantId(), old, old)
        .run();
    }
    expect((await statistics()).datasets.compas!.assigned).toBe(before.datasets.compas!.assigned);
    // A newcomer between assignment and session counts at once; so does an old assignment once its session exists.
    await postJson('/api/experiments/dataset-assignment/explicit', { session_id: newParticipantId(), dataset_type: 'compas', created_by: 'system' });
    expect((await statistics()).datasets.compas!.assigned).toBe(before.datasets.compas!.assigned + 1);
    const taken = newParticipantId();
    await env.DB.prepare("insert into dataset_assignments (session_id, dataset_type, created_by, is_confirmed, created_at, updated_at) values (?, 'compas', 'system', 0, ?, ?)").bind(taken, old, old).run();
    expect((await postJson('/api/experiments/sessions', { participant_name: taken, dataset_type: 'compas', new_participant: true })).status).toBe(201);
    expect((await statistics()).datasets.compas!.assigned).toBe(before.datasets.compas!.assigned + 2);
  });
});
