import { env } from 'cloudflare:workers';
import { beforeAll, describe, expect, it } from 'vitest';
import { errorBodySchema } from '../../worker/schemas/api';
import { caseSetResponseSchema } from '../../worker/schemas/experiment';
import { cleanText, isCleanText } from '../../worker/schemas/text';
import { api, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { consentedParticipant, participantDoneWithMain, seedCompasCases } from '../helpers/study-factories';

beforeAll(async () => {
  await seedCompasCases();
});

const HOSTILE = [
  ['a null byte', 'before\u0000after'],
  ['a bell', 'ring\u0007'],
  ['a carriage return', 'line\rline'],
  ['a DEL', 'x\u007F'],
  ['a lone high surrogate', 'half \uD83D'],
  ['a lone low surrogate', '\uDE00 half'],
] as const;

describe('free text', () => {
  it('keeps tab, newline and any well-formed Unicode', () => {
    expect(isCleanText('tab\there\nnext line 日本語 😀 é')).toBe(true);
    for (const [, text] of HOSTILE) expect(isCleanText(text)).toBe(false);
  });

  it.each(HOSTILE)('refuses a pre-experiment reason with %s (400, detail, nothing stored)', async (_name, text) => {
    const p = await consentedParticipant();
    const set = caseSetResponseSchema.parse(
      await (await api(`/api/experiments/case-sets/fixed?participant_id=${p.id}&num_cases=200&experiment_type=pre_experiment`)).json(),
    );
    const res = await postJson('/api/experiments/pre-experiment/responses', {
      session_id: p.id,
      case_id: set.case_set[0]!.case_id,
      prediction: 1,
      confidence: 3,
      response_time_ms: 900,
      reasoning: text,
    });
    expect(res.status).toBe(400);
    expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    const n = await env.DB.prepare('select count(*) as n from pre_experiment_responses where session_id = ?').bind(p.id).first<{ n: number }>();
    expect(n!.n).toBe(0);
  });

  it.each(HOSTILE)('refuses a post-survey text or "other" text with %s (400, detail, nothing stored)', async (_name, text) => {
    const p = await participantDoneWithMain();
    const answers = completePostSurvey();
    for (const spoiled of [
      { ...answers, benevolent: { ...answers.benevolent, initial_reaction_feelings: text } },
      { ...answers, benevolent: { ...answers.benevolent, disclosure_content_what_objective: JSON.stringify({ selections: ['other'], other_text: text }) } },
    ]) {
      const res = await postJson('/api/post-survey/', { session_id: p.id, ...spoiled });
      expect(res.status).toBe(400);
      expect(errorBodySchema.parse(await res.json()).detail).toBeTruthy();
    }
    const n = await env.DB.prepare('select count(*) as n from post_surveys where session_id = ?').bind(p.id).first<{ n: number }>();
    expect(n!.n).toBe(0);
  });
});

describe('cleanText (what the browser keeps)', () => {
  it('drops only what the server would refuse', () => {
    expect(cleanText('a\u0000b\u0007c\td\ne\uD83D f😀')).toBe('abc\td\ne f😀');
    for (const [, text] of HOSTILE) expect(isCleanText(cleanText(text))).toBe(true);
  });
});
