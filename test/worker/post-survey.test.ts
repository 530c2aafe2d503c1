import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { adjustmentExampleSchema, postSurveyCheckSchema, postSurveyRecordSchema, postSurveySubmitResultSchema } from '../../worker/schemas/post-survey-schemas';
import { adminCookie, api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, newParticipantId, participantDoneWithMain } from '../helpers/study-factories';

/** The spec's design (the shipped condition) shows the AI and its explanation, adjusted toward the participant. */
const SPEC_AUDIENCE = { ai: true, explanations: true, adjusted: true };

const submit = (body: unknown) => postJson('/api/post-survey/', body);
const stored = async (sessionId: string) =>
  (await env.DB.prepare('select count(*) as n from post_surveys where session_id = ?').bind(sessionId).first<{ n: number }>())!.n;

describe('POST /api/post-survey/', () => {
  it('stores a complete survey once, scores it, completes the session; a second submit is 409', async () => {
    const p = await participantDoneWithMain();
    const res = await submit({ session_id: p.id, ...completePostSurvey() });
    expect(res.status).toBe(201);
    expect(postSurveySubmitResultSchema.parse(await res.json())).toMatchObject({ success: true, session_id: p.id });
    const session = await env.DB.prepare('select current_phase, post_survey_completed_at from sessions where session_id = ?').bind(p.id).first<Record<string, string>>();
    expect(session).toMatchObject({ current_phase: 'completed' });
    expect(session!.post_survey_completed_at).toBeTruthy();
    const again = await submit({ session_id: p.id, ...completePostSurvey() });
    expect(again.status).toBe(409);
    expect(errorBodySchema.parse(await again.json()).detail).toBeTruthy();
    expect(await stored(p.id)).toBe(1);
    // Resuming a finished participant leads to the completion page.
    const resume = (await (await postJson('/api/experiments/resume', { participant_name: p.id })).json()) as Record<string, unknown>;
    expect(resume).toMatchObject({ isPostSurveyCompleted: true });
  });

  it('scores the Big Five with reverse keys, both loci of control and the need-for-cognition total, as computed by hand', async () => {
    const p = await participantDoneWithMain();
    const bfi: Record<string, number> = { bfi_1: 7, bfi_6: 2, bfi_2: 1, bfi_7: 5, bfi_3: 4, bfi_8: 4, bfi_4: 7, bfi_9: 1, bfi_5: 6, bfi_10: 3 };
    const answers = completePostSurvey((q) => {
      if (q.name in bfi) return bfi[q.name];
      if (q.kind === 'scale' && q.factor === 'internal_control') return 6;
      if (q.kind === 'scale' && q.factor === 'external_control') return 2;
      if (q.kind === 'scale' && q.factor === 'need_for_cognition') return 4;
      if (q.name === 'experiment_rating') return 6;
      if (q.name === 'overall_feedback') return '  thanks  ';
      return undefined;
    });
    const { scores } = postSurveySubmitResultSchema.parse(await (await submit({ session_id: p.id, ...answers })).json());
    expect(scores).toEqual({
      extraversion: (7 + (8 - 2)) / 2,
      agreeableness: (8 - 1 + 5) / 2,
      conscientiousness: (4 + (8 - 4)) / 2,
      emotional_stability: (8 - 7 + 1) / 2,
      openness: (6 + (8 - 3)) / 2,
      internal_control: 6,
      external_control: 2,
      // 9 items as answered (4) and 9 reverse-keyed (6 − 4 = 2).
      need_for_cognition: 9 * 4 + 9 * 2,
    });
    const record = postSurveyRecordSchema.parse(await (await api(`/api/post-survey/${p.id}`, { headers: { Cookie: await adminCookie() } })).json());
    expect(record).toMatchObject({ experiment_rating: 6, overall_feedback: 'thanks', scores });
    expect(record.bigfive).toMatchObject(bfi);
  });

  const broken: [string, (a: ReturnType<typeof completePostSurvey>) => unknown, string[]][] = [
    ['a missing required answer', (a) => ({ ...a, demographics: { ...a.demographics, age: null } }), ['demographics', 'age']],
    ['whitespace as an answer', (a) => ({ ...a, benevolent: { ...a.benevolent, initial_reaction_feelings: '   ' } }), ['benevolent', 'initial_reaction_feelings']],
    ['an age of 17', (a) => ({ ...a, demographics: { ...a.demographics, age: 17 } }), ['demographics', 'age']],
    ['an age of 121', (a) => ({ ...a, demographics: { ...a.demographics, age: 121 } }), ['demographics', 'age']],
    ['an age that is not a number', (a) => ({ ...a, demographics: { ...a.demographics, age: 'thirty' } }), ['demographics', 'age']],
    ['an unknown option', (a) => ({ ...a, demographics: { ...a.demographics, gender_identity: 'robot' } }), ['demographics', 'gender_identity']],
    ['8 on a 7-point scale', (a) => ({ ...a, bigfive: { ...a.bigfive, bfi_3: 8 } }), ['bigfive', 'bfi_3']],
    ['6 on a 5-point scale', (a) => ({ ...a, cognition: { ...a.cognition, ncs_1: 6 } }), ['cognition', 'ncs_1']],
    ['a reason of 601 characters', (a) => ({ ...a, benevolent: { ...a.benevolent, long_term_trust_rating_positive_reason: 'x'.repeat(601) } }), ['benevolent', 'long_term_trust_rating_positive_reason']],
    ['feelings of 801 characters', (a) => ({ ...a, benevolent: { ...a.benevolent, initial_reaction_feelings: 'あ'.repeat(801) } }), ['benevolent', 'initial_reaction_feelings']],
    [
      'an "other" text of 501 characters',
      (a) => ({ ...a, benevolent: { ...a.benevolent, disclosure_content_what_objective: JSON.stringify({ selections: ['other'], other_text: 'y'.repeat(501) }) } }),
      ['benevolent', 'disclosure_content_what_objective'],
    ],
    [
      '"other" chosen without its text',
      (a) => ({ ...a, benevolent: { ...a.benevolent, disclosure_content_how_subjective: JSON.stringify({ selections: ['other'], other_text: ' ' }) } }),
      ['benevolent', 'disclosure_content_how_subjective'],
    ],
    ['a multiselect that is not the JSON shape', (a) => ({ ...a, benevolent: { ...a.benevolent, disclosure_content_how_low_stakes: '["before"]' } }), ['benevolent', 'disclosure_content_how_low_stakes']],
    ['an unknown field', (a) => ({ ...a, locus: { ...a.locus, loc_19: 3 } }), ['locus', 'loc_19']],
    ['a rating of 8', (a) => ({ ...a, cognition: { ...a.cognition, experiment_rating: 8 } }), ['cognition', 'experiment_rating']],
  ];
  it.each(broken)('refuses %s with 400, its field in detail, storing nothing', async (_name, spoil, loc) => {
    const p = await participantDoneWithMain();
    const res = await submit({ session_id: p.id, ...(spoil(completePostSurvey()) as object) });
    expect(res.status).toBe(400);
    const { detail } = errorBodySchema.parse(await res.json());
    expect(Array.isArray(detail)).toBe(true);
    expect((detail as { loc: string[]; msg: string }[]).map((d) => d.loc)).toContainEqual(loc);
    expect(await stored(p.id)).toBe(0);
  });

  it.each([
    ['no body', undefined],
    ['a string', '"hello"'],
    ['a missing section', JSON.stringify({ session_id: 'AB23CD45', demographics: {}, benevolent: {}, bigfive: {}, locus: {} })],
    ['a section that is a list', JSON.stringify({ session_id: 'AB23CD45', demographics: [], benevolent: {}, bigfive: {}, locus: {}, cognition: {} })],
    ['an object as an answer', JSON.stringify({ session_id: 'AB23CD45', demographics: { age: { n: 3 } }, benevolent: {}, bigfive: {}, locus: {}, cognition: {} })],
    ['a malformed session ID', JSON.stringify({ session_id: '../x', demographics: {}, benevolent: {}, bigfive: {}, locus: {}, cognition: {} })],
  ])('answers %s with 4xx and detail, never 5xx', async (_name, body) => {
    const res = await api('/api/post-survey/', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
  });

  it('refuses before the main experiment is complete (409) and for an unknown participant (404)', async () => {
    const p = await consentedParticipant();
    expect((await submit({ session_id: p.id, ...completePostSurvey() })).status).toBe(409);
    expect((await submit({ session_id: newParticipantId(), ...completePostSurvey() })).status).toBe(404);
    expect(await stored(p.id)).toBe(0);
  });
});

describe('GET /api/post-survey/{sessionId} and /check/{sessionId}', () => {
  it('answers 404 and exists: false before, the answers by section (to an administrator) and exists: true after', async () => {
    const p = await participantDoneWithMain();
    expect((await api(`/api/post-survey/${p.id}`)).status).toBe(404);
    expect(postSurveyCheckSchema.parse(await (await api(`/api/post-survey/check/${p.id}`)).json())).toEqual({ session_id: p.id, exists: false, audience: SPEC_AUDIENCE, main_completed: true });
    const answers = completePostSurvey();
    await submit({ session_id: p.id, ...answers });
    const record = postSurveyRecordSchema.parse(await (await api(`/api/post-survey/${p.id}`, { headers: { Cookie: await adminCookie() } })).json());
    expect(record.demographics).toEqual(answers.demographics);
    expect(record.benevolent).toEqual(answers.benevolent);
    expect(postSurveyCheckSchema.parse(await (await api(`/api/post-survey/check/${p.id}`)).json()).exists).toBe(true);
  });

  it('tells the page the main experiment is not complete yet, so it can send the participant back first', async () => {
    const p = await consentedParticipant();
    expect(postSurveyCheckSchema.parse(await (await api(`/api/post-survey/check/${p.id}`)).json())).toEqual({ session_id: p.id, exists: false, audience: SPEC_AUDIENCE, main_completed: false });
  });

  it('answers an unknown participant with 404 and a malformed ID with 400', async () => {
    expect((await api(`/api/post-survey/check/${newParticipantId()}`)).status).toBe(404);
    expect((await api('/api/post-survey/bad%20id')).status).toBe(400);
  });
});

describe('GET /api/post-survey/example/{sessionId}', () => {
  it('finds nothing for a participant without adjusted cases', async () => {
    const p = await participantDoneWithMain();
    const body = adjustmentExampleSchema.parse(await (await api(`/api/post-survey/example/${p.id}`)).json());
    expect(body).toEqual({ session_id: p.id, found: false, example: null });
  });

  it("gives the participant's most adjusted case: the AI's own bars before, the bars shown after", async () => {
    const p = await participantDoneWithMain();
    const bars = (x: number) => [{ feature: 'priors_count', importance: x, abs_importance: Math.abs(x), raw_shap: x }];
    const insert = (caseNumber: number, alpha: number, kind: string) =>
      env.DB.prepare(
        `insert into main_experiment_responses (participant_id, session_id, dataset_type, case_id, case_number, ground_truth, alignment_alpha, explanation_kind,
         ai_feature_importance, shown_feature_importance, case_data, ai_prediction, created_at, updated_at, completed_at)
         values (?, ?, 'compas', ?, ?, 1, ?, ?, ?, ?, '{"priors_count":3}', 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
      )
        .bind(p.userId, p.id, `compas_main_a_${caseNumber}`, caseNumber, alpha, kind, JSON.stringify(bars(0.9)), JSON.stringify(bars(0.1 * caseNumber)))
        .run();
    await insert(1, 1, 'human_aligned');
    await insert(2, 0.25, 'ai_only');
    await insert(3, 0.5, 'human_aligned');
    await insert(4, 0.25, 'human_aligned');
    const body = adjustmentExampleSchema.parse(await (await api(`/api/post-survey/example/${p.id}`)).json());
    expect(body.example).toMatchObject({ case_number: 4, alignment_alpha: 0.25, before: bars(0.9), features: { priors_count: 3 } });
    expect(body.example!.after[0]!.importance).toBeCloseTo(0.4, 12);
  });
});
