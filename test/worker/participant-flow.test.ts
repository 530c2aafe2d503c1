import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import {
  caseSetResponseSchema,
  checkExistingResponseSchema,
  consentResponseSchema,
  preBatchResultSchema,
  preResponseResultSchema,
  resumeDataSchema,
  sessionInfoSchema,
  userModelTrainResultSchema,
} from '../../worker/schemas/experiment';
import { USER_MODEL_IDENTIFIER_METADATA } from '../../worker/services/model-store';
import { r2Keys } from '../../worker/storage/r2';
import { adminCookie, api, postJson, uniqueClientIp } from '../helpers/api';
import { allConsentItems, consentedParticipant, newParticipantId, seedCompasAiModel, seedCompasCases } from '../helpers/study-factories';

beforeAll(async () => {
  await seedCompasCases();
  await seedCompasAiModel();
});

async function caseSet(id: string) {
  return caseSetResponseSchema.parse(await (await api(`/api/experiments/case-sets/fixed?participant_id=${id}&num_cases=200`)).json()).case_set;
}

const answer = (id: string, caseId: string, i: number) => ({
  session_id: id,
  case_id: caseId,
  prediction: (i % 2) as 0 | 1,
  confidence: 1 + (i % 5),
  response_time_ms: 1500 + i,
  ground_truth: 1,
});

describe('POST /api/consent/submit', () => {
  it('records all seven items, the study version and the client address', async () => {
    const id = newParticipantId();
    const { user_id } = (await (await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' })).json()) as { user_id: number };
    const res = await postJson('/api/consent/submit', { session_id: id, user_id, consent_items: allConsentItems() }, { 'CF-Connecting-IP': '203.0.113.9' });
    expect(res.status).toBe(201);
    const body = consentResponseSchema.parse(await res.json());
    expect(body).toMatchObject({ study_version: '1.0.0', duplicate: false });
    const row = await env.DB.prepare('select consent_items, ip_address from consent_records where session_id = ?').bind(id).first<{ consent_items: string; ip_address: string }>();
    expect(JSON.parse(row!.consent_items)).toEqual(allConsentItems());
    expect(row!.ip_address).toBe('203.0.113.9');
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info).toMatchObject({ consented: true, current_phase: 'pre_experiment' });
  });

  it('acknowledges a repeated consent without a second record', async () => {
    const { id, userId } = await consentedParticipant();
    const again = await postJson('/api/consent/submit', { session_id: id, user_id: userId, consent_items: allConsentItems() });
    expect(again.status).toBe(200);
    expect(consentResponseSchema.parse(await again.json()).duplicate).toBe(true);
    const n = await env.DB.prepare('select count(*) as n from consent_records where session_id = ?').bind(id).first<{ n: number }>();
    expect(n!.n).toBe(1);
  });

  it('rejects six of seven items with 400 and stores nothing', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const res = await postJson('/api/consent/submit', { session_id: id, consent_items: { ...allConsentItems(), others: false } });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).code).toBe('consent_incomplete');
    const n = await env.DB.prepare('select count(*) as n from consent_records where session_id = ?').bind(id).first<{ n: number }>();
    expect(n!.n).toBe(0);
  });

  it('rejects unknown items, a foreign user id and an unknown session', async () => {
    const { id } = await consentedParticipant();
    expect((await postJson('/api/consent/submit', { session_id: id, consent_items: { ...allConsentItems(), extra: true } })).status).toBe(400);
    expect((await postJson('/api/consent/submit', { session_id: id, user_id: 999999, consent_items: allConsentItems() })).status).toBe(400);
    expect((await postJson('/api/consent/submit', { session_id: newParticipantId(), consent_items: allConsentItems() })).status).toBe(404);
    expect((await postJson('/api/consent/submit', { session_id: id, consent_items: 'yes' })).status).toBe(400);
  });
});

describe('POST /api/experiments/pre-experiment/responses', () => {
  it('stores an answer with the server-side case number and ground truth', async () => {
    const { id } = await consentedParticipant();
    const [first] = await caseSet(id);
    const res = await postJson('/api/experiments/pre-experiment/responses', { ...answer(id, first!.case_id, 0), ground_truth: 0, case_number: 77 });
    expect(res.status).toBe(201);
    expect(preResponseResultSchema.parse(await res.json())).toMatchObject({ duplicate: false, total_responses: 1 });
    const row = await env.DB.prepare('select case_number, ground_truth from pre_experiment_responses where session_id = ?').bind(id).first<{ case_number: number; ground_truth: number }>();
    const truth = await env.DB.prepare('select ground_truth from cases where case_id = ?').bind(first!.case_id).first<{ ground_truth: number }>();
    expect(row).toEqual({ case_number: 1, ground_truth: truth!.ground_truth });
  });

  it('stores an answer sent alone exactly as the same answer sent in a batch', async () => {
    // One answer and several are saved by different statements; the rows must not tell which.
    const [alone, batched] = [await consentedParticipant(), await consentedParticipant()];
    const [, second, third] = await caseSet(alone.id);
    // Each participant's set has its own order; the case number is the case's place in it.
    const positionInBatched = (await caseSet(batched.id)).findIndex((c) => c.case_id === second!.case_id) + 1;
    expect(positionInBatched).toBeGreaterThan(0);
    const sent = { ...answer(alone.id, second!.case_id, 3), reasoning: 'two priors' };
    expect((await postJson('/api/experiments/pre-experiment/responses', sent)).status).toBe(201);
    const { session_id: _, ...inBatch } = { ...sent, session_id: batched.id };
    const other = { case_id: third!.case_id, prediction: 1, confidence: 2, response_time_ms: 900 };
    expect((await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: batched.id, responses: [inBatch, other] })).status).toBe(200);
    const stored = async (id: string) =>
      await env.DB.prepare(
        `select r.participant_id = s.participant_id as own, r.dataset_type, r.case_number, r.prediction, r.confidence, r.response_time_ms,
                r.reasoning, r.ground_truth, r.case_data, c.features as case_shown, r.created_at is not null as dated
         from pre_experiment_responses r join sessions s on s.session_id = r.session_id join cases c on c.case_id = r.case_id
         where r.session_id = ? and r.case_id = ?`,
      )
        .bind(id, second!.case_id)
        .first();
    const row = await stored(alone.id);
    const features = await env.DB.prepare('select features from cases where case_id = ?').bind(second!.case_id).first<{ features: string }>();
    expect(row).toMatchObject({ own: 1, case_number: 2, prediction: 1, confidence: 4, response_time_ms: 1503, reasoning: 'two priors', case_data: null, case_shown: features!.features, dated: 1 });
    expect(await stored(batched.id)).toEqual({ ...row, case_number: positionInBatched });
  });

  it('completes the phase with the 200th answer sent alone', async () => {
    const { id } = await consentedParticipant();
    const set = await caseSet(id);
    const responses = set.slice(0, 199).map((c, i) => ({ case_id: c.case_id, prediction: 1, confidence: 3, response_time_ms: i }));
    await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses });
    expect(sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json()).current_phase).toBe('pre_experiment');
    const last = await postJson('/api/experiments/pre-experiment/responses', answer(id, set[199]!.case_id, 0));
    expect(preResponseResultSchema.parse(await last.json())).toMatchObject({ duplicate: false, total_responses: 200 });
    expect(sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json()).current_phase).toBe('main_experiment');
  });

  it('stores the optional reason, and refuses one longer than the limit', async () => {
    const { id } = await consentedParticipant();
    const [first, second] = await caseSet(id);
    const res = await postJson('/api/experiments/pre-experiment/responses', { ...answer(id, first!.case_id, 1), reasoning: 'many prior offences' });
    expect(res.status).toBe(201);
    const row = await env.DB.prepare('select reasoning from pre_experiment_responses where session_id = ?').bind(id).first<{ reasoning: string }>();
    expect(row?.reasoning).toBe('many prior offences');
    const long = await postJson('/api/experiments/pre-experiment/responses', { ...answer(id, second!.case_id, 1), reasoning: 'x'.repeat(2001) });
    expect(long.status).toBe(400);
    errorBodySchema.parse(await long.json());
  });

  it('acknowledges a repeated answer and never stores it twice', async () => {
    const { id } = await consentedParticipant();
    const [first] = await caseSet(id);
    await postJson('/api/experiments/pre-experiment/responses', answer(id, first!.case_id, 0));
    const again = await postJson('/api/experiments/pre-experiment/responses', { ...answer(id, first!.case_id, 0), prediction: 1 });
    expect(again.status).toBe(200);
    expect(preResponseResultSchema.parse(await again.json())).toMatchObject({ duplicate: true, total_responses: 1 });
    const row = await env.DB.prepare('select prediction from pre_experiment_responses where session_id = ?').bind(id).first<{ prediction: number }>();
    expect(row!.prediction).toBe(0);
  });

  it.each([
    [{ prediction: 2 }, 'prediction'],
    [{ confidence: 0 }, 'confidence'],
    [{ confidence: 6 }, 'confidence'],
    [{ response_time_ms: -1 }, 'response_time_ms'],
    [{ case_id: '' }, 'case_id'],
  ])('rejects %o with 400 naming %s, storing nothing', async (change, field) => {
    const { id } = await consentedParticipant();
    const [first] = await caseSet(id);
    const res = await postJson('/api/experiments/pre-experiment/responses', { ...answer(id, first!.case_id, 0), ...change });
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(Array.isArray(body.detail) && body.detail.some((d) => d.loc.includes(field))).toBe(true);
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info.pre_experiment_count).toBe(0);
  });

  it("rejects a case outside the session's set", async () => {
    const { id } = await consentedParticipant();
    const res = await postJson('/api/experiments/pre-experiment/responses', answer(id, 'tutorial_compas', 0));
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).code).toBe('case_not_in_set');
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info.pre_experiment_count).toBe(0);
  });

  it('refuses answers before consent', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas' });
    const [first] = await caseSet(id);
    const res = await postJson('/api/experiments/pre-experiment/responses', answer(id, first!.case_id, 0));
    expect(res.status).toBe(409);
    expect(errorBodySchema.parse(await res.json()).code).toBe('consent_required');
  });
});

describe('POST /api/experiments/pre-experiment/responses/batch', () => {
  it('stores the full set once, however often it is sent, and marks the phase complete', async () => {
    const { id } = await consentedParticipant();
    const set = await caseSet(id);
    // Some answers already arrived one by one.
    for (const [i, c] of set.slice(0, 3).entries()) await postJson('/api/experiments/pre-experiment/responses', answer(id, c.case_id, i));
    const responses = set.map((c, i) => {
      const { session_id: _, ...rest } = answer(id, c.case_id, i);
      return rest;
    });
    const res = await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses });
    const body = preBatchResultSchema.parse(await res.json());
    expect(body).toMatchObject({ stored: 197, duplicates: 3, total_responses: 200, complete: true });
    const again = preBatchResultSchema.parse(await (await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses })).json());
    expect(again).toMatchObject({ stored: 0, total_responses: 200 });
    const n = await env.DB.prepare('select count(*) as n from pre_experiment_responses where session_id = ?').bind(id).first<{ n: number }>();
    expect(n!.n).toBe(200);
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info.current_phase).toBe('main_experiment');
  });

  it('rejects a batch with one bad answer and stores none of it', async () => {
    const { id } = await consentedParticipant();
    const set = await caseSet(id);
    const responses = set.slice(0, 5).map((c, i) => ({ case_id: c.case_id, prediction: 1, confidence: 3, response_time_ms: i }));
    responses[4] = { ...responses[4]!, confidence: 9 };
    const res = await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses });
    expect(res.status).toBe(400);
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info.pre_experiment_count).toBe(0);
  });

  it("rejects a batch with one case outside the session's set and stores none of it", async () => {
    const { id } = await consentedParticipant();
    const set = await caseSet(id);
    const responses = [...set.slice(0, 4).map((c) => c.case_id), 'tutorial_compas'].map((caseId, i) => ({ case_id: caseId, prediction: 0, confidence: 2, response_time_ms: i }));
    const res = await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses });
    expect(res.status).toBe(400);
    const body = errorBodySchema.parse(await res.json());
    expect(body).toMatchObject({ code: 'case_not_in_set' });
    expect(JSON.stringify(body.detail)).toContain('tutorial_compas');
    const info = sessionInfoSchema.parse(await (await api(`/api/experiments/sessions/${id}`)).json());
    expect(info.pre_experiment_count).toBe(0);
  });

  it('rejects more than 200 answers', async () => {
    const { id } = await consentedParticipant();
    const responses = Array.from({ length: 201 }, (_, i) => ({ case_id: `compas_pre_${i}`, prediction: 1, confidence: 3, response_time_ms: 1 }));
    expect((await postJson('/api/experiments/pre-experiment/responses/batch', { session_id: id, responses })).status).toBe(400);
  });
});

describe('resume', () => {
  it('reports nothing for an unknown ID and 404 on resume', async () => {
    const check = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: newParticipantId() })).json());
    expect(check).toMatchObject({ exists: false, canResume: false });
    const res = await postJson('/api/experiments/resume', { participant_name: newParticipantId() });
    expect(res.status).toBe(404);
  });

  it("resumes a synthetic participant by its test_ name exactly as registered, and still reads a participant's typed ID upper-cased", async () => {
    const name = `test_Resume-${crypto.randomUUID().slice(0, 6)}`;
    const cookie = await adminCookie();
    const registered = await api(`/api/admin/register-user-responses?participant_name=${name}&dataset_type=compas&num_responses=12`, { method: 'POST', headers: { Cookie: cookie } });
    expect(registered.status).toBe(200);
    const check = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: name })).json());
    expect(check).toMatchObject({ exists: true, canResume: true, preExperimentCount: 12 });
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: name })).json());
    expect(resume).toMatchObject({ success: true, sessionId: name, action: 'resume_pre_experiment', nextCaseNumber: 13 });
    const { id } = await consentedParticipant();
    const typed = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: ` ${id.toLowerCase().slice(0, 4)}-${id.toLowerCase().slice(4)} ` })).json());
    expect(typed.exists).toBe(true);
  });

  it('leads a participant who never consented to consent first, since no answer would be accepted before it', async () => {
    const id = newParticipantId();
    await postJson('/api/experiments/sessions', { participant_name: id, dataset_type: 'compas', new_participant: true });
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: id })).json());
    expect(resume).toMatchObject({ success: true, currentPhase: 'consent', action: 'give_consent', resume_url: '/experiment/consent', confirmedDatasetType: 'compas' });
  });

  it('resumes a pre-experiment at the exact next unanswered case', async () => {
    const { id, userId } = await consentedParticipant();
    const set = await caseSet(id);
    for (const [i, c] of set.slice(0, 56).entries()) await postJson('/api/experiments/pre-experiment/responses', answer(id, c.case_id, i));
    const check = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: id.toLowerCase() })).json());
    expect(check).toMatchObject({ exists: true, canResume: true, preExperimentCount: 56, userId });
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: id })).json());
    expect(resume).toMatchObject({
      success: true,
      currentPhase: 'pre_experiment',
      action: 'resume_pre_experiment',
      nextCaseNumber: 57,
      remainingCases: 144,
      confirmedDatasetType: 'compas',
      integrityError: false,
      resume_url: '/experiment/pre',
    });
    expect(resume.caseSet.map((c) => c.case_id)).toEqual(set.map((c) => c.case_id));
    expect(new Set(resume.existingResponses.map((r) => r.case_id))).toEqual(new Set(set.slice(0, 56).map((c) => c.case_id)));
  });

  it('sends a participant who finished the pre-experiment to the main experiment', async () => {
    const { id } = await consentedParticipant();
    const set = await caseSet(id);
    await postJson('/api/experiments/pre-experiment/responses/batch', {
      session_id: id,
      responses: set.map((c, i) => ({ case_id: c.case_id, prediction: i % 2, confidence: 3, response_time_ms: 1 })),
    });
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: id })).json());
    expect(resume).toMatchObject({ currentPhase: 'main_experiment', action: 'start_main_experiment', nextCaseNumber: 1, caseSet: [] });
  });

  it('blocks resuming when the data is inconsistent', async () => {
    const { id } = await consentedParticipant();
    await env.DB.prepare('update dataset_assignments set dataset_type = ? where session_id = ?').bind('adult_income', id).run();
    const resume = resumeDataSchema.parse(await (await postJson('/api/experiments/resume', { participant_name: id })).json());
    expect(resume).toMatchObject({ success: false, integrityError: true });
    const check = checkExistingResponseSchema.parse(await (await postJson('/api/experiments/check-existing', { participant_name: id })).json());
    expect(check).toMatchObject({ exists: true, canResume: false, integrityError: true });
  });

  it('rejects an empty participant name with 400', async () => {
    expect((await postJson('/api/experiments/resume', { participant_name: '--' })).status).toBe(400);
  });
});

describe('user-model training', () => {
  it('reports insufficient data below 3 answers', async () => {
    const { id } = await consentedParticipant();
    const [a, b] = await caseSet(id);
    for (const [i, c] of [a!, b!].entries()) await postJson('/api/experiments/pre-experiment/responses', answer(id, c.case_id, i));
    const body = userModelTrainResultSchema.parse(await (await postJson('/api/user-model/train', { session_id: id, dataset_type: 'compas' })).json());
    expect(body).toMatchObject({ success: false, status: 'insufficient_data', training_samples: 2 });
  });

  it("fits the participant's answers, stores the model in R2 and its metadata in D1", async () => {
    const { id, userId } = await consentedParticipant();
    const set = await caseSet(id);
    await postJson('/api/experiments/pre-experiment/responses/batch', {
      session_id: id,
      responses: set.map((c, i) => ({ case_id: c.case_id, prediction: Number(c.features.priors_count) > 4 ? 1 : 0, confidence: 1 + (i % 5), response_time_ms: 900 })),
    });
    const body = userModelTrainResultSchema.parse(await (await postJson('/api/user-model/train', { session_id: id, dataset_type: 'compas' })).json());
    expect(body).toMatchObject({ success: true, status: 'trained', training_samples: 200 });
    const stored = await env.MODELS.get(r2Keys.userModel('compas', id));
    // The file names the training that wrote it, which explanations cache the model by.
    expect(stored!.customMetadata).toEqual({ [USER_MODEL_IDENTIFIER_METADATA]: body.model_identifier });
    const model = (await stored!.json()) as { trees: unknown[]; metadata: { train_accuracy: number; data_size_category: string } };
    expect(model.trees).toHaveLength(50);
    expect(model.metadata.data_size_category).toBe('full');
    // The rule is learnable from the features: the model reproduces the participant's own answers.
    expect(model.metadata.train_accuracy).toBeGreaterThan(0.95);
    const row = await env.DB.prepare('select status, training_samples, num_trees from user_models where session_id = ?').bind(id).first();
    expect(row).toEqual({ status: 'trained', training_samples: 200, num_trees: 50 });
    // Training again without force keeps the model; the numeric route forces a retrain.
    const kept = userModelTrainResultSchema.parse(await (await postJson('/api/user-model/train', { session_id: id })).json());
    expect(kept.model_identifier).toBe(body.model_identifier);
    expect((await api(`/api/user-models/train/${userId}?force_retrain=true`, { method: 'POST' })).status).toBe(401);
    const cookie = await adminCookie();
    const forced = userModelTrainResultSchema.parse(
      await (await api(`/api/user-models/train/${userId}?force_retrain=true`, { method: 'POST', headers: { Cookie: cookie } })).json(),
    );
    expect(forced.status).toBe('trained');
    expect(forced.model_identifier).not.toBe(body.model_identifier);
  });

  it('refits a model trained on part of the pre-experiment once the rest is in, and keeps every replaced version with its file', async () => {
    const { id, userId } = await consentedParticipant();
    const rule = (c: { features: Record<string, unknown> }) => (Number(c.features.priors_count) > 4 ? 1 : 0);
    const drawn = await caseSet(id);
    // The first six answers hold both predictions (three each), whatever order the participant's set came in: a model needs both.
    const first = [...drawn.filter((c) => rule(c) === 1).slice(0, 3), ...drawn.filter((c) => rule(c) === 0).slice(0, 3)];
    const set = [...first, ...drawn.filter((c) => !first.includes(c))];
    const predictions = set.map(rule);
    const send = (from: number, to: number) =>
      postJson('/api/experiments/pre-experiment/responses/batch', {
        session_id: id,
        responses: set.slice(from, to).map((c, i) => ({ case_id: c.case_id, prediction: predictions[from + i], confidence: 3, response_time_ms: 900 })),
      });
    const train = async () => userModelTrainResultSchema.parse(await (await postJson('/api/user-model/train', { session_id: id, dataset_type: 'compas' })).json());
    expect((await send(0, 6)).status).toBe(200);
    const early = await train();
    expect(early).toMatchObject({ status: 'trained', training_samples: 6 });
    expect((await send(6, 200)).status).toBe(200);
    // Not "already trained": the model is refitted on the whole pre-experiment.
    const full = await train();
    expect(full).toMatchObject({ status: 'trained', training_samples: 200 });
    expect(full.model_identifier).not.toBe(early.model_identifier);
    expect((await train()).model_identifier).toBe(full.model_identifier);

    // A forced retrain keeps the version it replaces, record and file.
    const cookie = await adminCookie();
    const forced = userModelTrainResultSchema.parse(
      await (await api(`/api/user-models/train/${userId}?force_retrain=true`, { method: 'POST', headers: { Cookie: cookie } })).json(),
    );
    expect(forced.model_identifier).not.toBe(full.model_identifier);
    const versions = (
      await env.DB.prepare('select model_identifier, training_samples, r2_key, superseded_at from user_model_versions where session_id = ? order by id').bind(id).all<{
        model_identifier: string;
        training_samples: number;
        r2_key: string;
        superseded_at: string;
      }>()
    ).results;
    expect(versions.map((v) => [v.model_identifier, v.training_samples])).toEqual([
      [early.model_identifier, 6],
      [full.model_identifier, 200],
    ]);
    for (const v of versions) {
      const file = await env.MODELS.get(v.r2_key);
      expect(file?.customMetadata?.[USER_MODEL_IDENTIFIER_METADATA], v.r2_key).toBe(v.model_identifier);
      expect(v.superseded_at).toBeTruthy();
    }
    const current = await env.MODELS.get(r2Keys.userModel('compas', id));
    expect(current!.customMetadata![USER_MODEL_IDENTIFIER_METADATA]).toBe(forced.model_identifier);
    const exported = await (await api(`/api/enhanced-export/all-data?format=csv&user_name=${id}`, { headers: { Cookie: cookie } })).arrayBuffer();
    const { unzipSync, strFromU8 } = await import('fflate');
    const csv = strFromU8(unzipSync(new Uint8Array(exported))['user-models.csv']!);
    for (const identifier of [early.model_identifier, full.model_identifier, forced.model_identifier]) expect(csv).toContain(identifier!);

    // Deleting the participant takes every version and file with it.
    const deleted = await api(`/api/admin/users/${userId}`, { method: 'DELETE', headers: { Cookie: cookie } });
    expect(deleted.status).toBe(200);
    expect(await env.DB.prepare('select count(*) as n from user_model_versions where session_id = ?').bind(id).first()).toEqual({ n: 0 });
    for (const v of versions) expect(await env.MODELS.head(v.r2_key)).toBeNull();
  });

  it('rejects a dataset that is not the session’s and an unknown user', async () => {
    const { id } = await consentedParticipant();
    expect((await postJson('/api/user-model/train', { session_id: id, dataset_type: 'adult_income' })).status).toBe(400);
    const cookie = await adminCookie();
    expect((await api('/api/user-models/train/987654321', { method: 'POST', headers: { Cookie: cookie } })).status).toBe(404);
    expect((await api('/api/user-models/train/abc', { method: 'POST', headers: { Cookie: cookie } })).status).toBe(400);
  });
});

describe('the limit on saving answers', () => {
  const save = (body: unknown, ip: string) => postJson('/api/experiments/pre-experiment/responses', body, { 'CF-Connecting-IP': ip });
  const minute = () => Math.floor(Date.now() / 60_000);

  it('counts refused answers per client, never saved ones, and then turns the client away before saving anything', async () => {
    for (let attempt = 0; ; attempt++) {
      const ip = uniqueClientIp();
      const { id } = await consentedParticipant();
      const cases = (await caseSet(id)).map((c) => c.case_id);
      const started = minute();
      for (const [i, caseId] of cases.slice(0, 199).entries()) expect((await save(answer(id, caseId, i), ip)).status).toBe(201);
      expect((await save(answer(id, cases[0]!, 0), ip)).status).toBe(200); // a retry: already stored, not counted either
      // Guessing IDs from the same address: each refusal is an ID lookup that found nothing, 120 a minute (wrangler.toml), then 429.
      const statuses: number[] = [];
      while (statuses.length < 241 && statuses.at(-1) !== 429) statuses.push((await save(answer(newParticipantId(), cases[0]!, 0), ip)).status);
      // Fixed one-minute windows: had this run straddled one, the count restarted; run it once more.
      if (minute() !== started && attempt === 0) continue;
      expect(statuses.at(-1)).toBe(429);
      expect(new Set(statuses.slice(0, -1))).toEqual(new Set([404]));
      // Had the 200 saved answers counted, the very first refusal would have met the limit.
      expect(statuses.length - 1).toBeGreaterThanOrEqual(120);
      // Turned away until the window ends: even the participant's own next answer, unsaved.
      const turnedAway = await save(answer(id, cases[199]!, 199), ip);
      expect(turnedAway.status).toBe(429);
      expect(Number(turnedAway.headers.get('Retry-After'))).toBeGreaterThan(0);
      expect(errorBodySchema.parse(await turnedAway.json()).detail).toMatch(/Too many requests/);
      const stored = await env.DB.prepare('select count(*) as n from pre_experiment_responses where session_id = ?').bind(id).first<{ n: number }>();
      expect(stored!.n).toBe(199);
      // Another address is not affected.
      expect((await save(answer(id, cases[199]!, 199), uniqueClientIp())).status).toBe(201);
      return;
    }
    // About 800 calls, twice if a minute's end interrupts the first run.
  }, 60_000);
});
