/**
 * Bad-input fuzzing over every route the Worker serves (read from the app's own route table, so
 * a new route is fuzzed without editing this file): malformed and hostile path parameters, query
 * strings and bodies, and mutations of valid bodies one field at a time. For every generated
 * call: never a 5xx; every rejection is a 4xx whose JSON body has `detail`; and a rejected call
 * leaves the database exactly as it was (a fingerprint of every table is compared).
 *
 * Admin routes are called with a live admin session, so their input validation is fuzzed too, not
 * only the guard in front of it.
 *
 * Size: XDL_FUZZ_RUNS generated calls in all (10,000 by default), spread over the routes.
 */
import { env } from 'cloudflare:workers';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { isAdminPath } from '../../worker/middleware/admin-auth';
import { fingerprinter } from '../helpers/db-fingerprint';
import { adminCookie, api, appRoutes, postJson } from '../helpers/api';
import { completePostSurvey } from '../helpers/post-survey-answers';
import { allConsentItems, consentedParticipant, newParticipantId, seedCompasStudy } from '../helpers/study-factories';

const TOTAL_RUNS = env.XDL_FUZZ_RUNS;

/** Text meant to break things: injections, traversal, control characters, lone surrogates, huge and odd values. */
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    "'; DROP TABLE sessions;--",
    '" OR 1=1 --',
    '../../../etc/passwd',
    '%00',
    '\u0000',
    'A\u0000B',
    '\ud800',
    'x\udfffy',
    '\u202e\u0007',
    '<script>alert(1)</script>',
    '${7*7}',
    '__proto__',
    'constructor',
    'session_abcdef12',
    'ABCDEFGH',
    'abcdefgh',
    ' ABCDEFGH ',
    'ＡＢＣＤＥＦＧＨ',
    'A'.repeat(10_000),
    '',
    'NaN',
    '-0',
    '1e309',
  ),
);
const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileText,
  fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53, -(2 ** 63), 1e308, [], {}, [null], { $gt: '' }, { __proto__: { admin: true } }),
  fc.integer(),
  fc.double(),
  fc.array(hostileText, { maxLength: 3 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A path segment: hostile text, percent-encoded (lone surrogates made well-formed first), or a raw malformed escape. */
const pathSegment = fc.oneof(
  hostileText.map((t) => encodeURIComponent(t.replace(LONE_SURROGATE, '\ufffd'))),
  fc.constantFrom('%', '%zz', '%ED%A0%80', '%00', '..%2F..', '%2e%2e', '%C0%AF', '%FF'),
);

describe('bad-input fuzzing over every route', () => {
  let participant: { id: string; userId: number };
  let valid: Map<string, () => unknown>;
  let admin: string;

  beforeAll(async () => {
    admin = await adminCookie();
    await seedCompasStudy();
    participant = await consentedParticipant();
    const set = (await (
      await api(`/api/experiments/case-sets/fixed?participant_id=${participant.id}&num_cases=200&experiment_type=pre_experiment`)
    ).json()) as { case_set: { case_id: string }[] };
    const caseId = set.case_set[0]!.case_id;
    const preAnswer = { case_id: caseId, prediction: 1, confidence: 3, response_time_ms: 1200, reasoning: 'ok' };
    // A valid body per route where one exists, for one-field mutations that get past parsing.
    valid = new Map<string, () => unknown>([
      ['POST /api/experiments/sessions', () => ({ participant_name: newParticipantId(), dataset_type: 'compas', language: 'ja', new_participant: true })],
      ['POST /api/consent/submit', () => ({ session_id: participant.id, user_id: participant.userId, consent_items: allConsentItems() })],
      ['POST /api/experiments/pre-experiment/responses', () => ({ session_id: participant.id, ...preAnswer })],
      ['POST /api/experiments/pre-experiment/responses/batch', () => ({ session_id: participant.id, responses: [preAnswer] })],
      ['POST /api/experiments/check-existing', () => ({ participant_name: participant.id })],
      ['POST /api/experiments/resume', () => ({ participant_name: participant.id })],
      ['POST /api/human-aligned-explanation', () => ({ session_id: participant.id, case_id: caseId })],
      ['POST /api/user-model/train', () => ({ session_id: participant.id, dataset_type: 'compas' })],
      ['POST /api/post-survey', () => ({ session_id: participant.id, ...completePostSurvey() })],
      ['POST /api/admin/login', () => ({ password: 'not-the-password' })],
    ]);
  });

  it(`answers ${TOTAL_RUNS} malformed or hostile calls with a 4xx and detail, never a 5xx, and changes nothing when it refuses`, async () => {
    const routes = appRoutes();
    const databaseFingerprint = await fingerprinter();
    const exportsSettled = async () => {
      for (let i = 0; i < 600; i++) {
        const running = await env.DB.prepare("select count(*) as n from export_jobs where status = 'running'").first<{ n: number }>();
        if (running!.n === 0) return;
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error('an export job kept running for 30 s');
    };
    expect(routes.length).toBeGreaterThan(25);
    const perRoute = Math.ceil(TOTAL_RUNS / routes.length);
    let calls = 0;
    const statuses = new Map<number, number>();

    for (const route of routes) {
      const template = valid.get(`${route.method} ${route.path.replace(/\/$/, '')}`);
      const paramNames = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
      const body = fc.oneof(
        // A valid body with one field replaced, removed or added.
        ...(template
          ? [
              fc.tuple(fc.nat(), hostileValue, fc.constantFrom('replace', 'remove', 'add')).map(([i, value, how]) => {
                const b = template() as Record<string, unknown>;
                const keys = Object.keys(b);
                const key = keys[i % keys.length]!;
                if (how === 'replace') b[key] = value;
                else if (how === 'remove') delete b[key];
                else b[`extra_${i}`] = value;
                return { json: b };
              }),
            ]
          : []),
        hostileValue.map((json) => ({ json })),
        fc.dictionary(hostileText, hostileValue, { maxKeys: 6 }).map((json) => ({ json })),
        // Not JSON at all, or JSON under the wrong content type.
        hostileText.map((raw) => ({ raw, type: 'application/json' })),
        fc.constantFrom('{"session_id":', '[1,2', '{"a":1}}', '\u0000{}', 'null').map((raw) => ({ raw, type: 'application/json' })),
        hostileText.map((raw) => ({ raw, type: 'text/plain' })),
      );
      const call = fc.record({
        params: fc.array(pathSegment, { minLength: paramNames.length, maxLength: paramNames.length }),
        query: fc.dictionary(
          fc.constantFrom(
            ...['session_id', 'participant_id', 'participant_name', 'num_cases', 'experiment_type', 'dataset_type', 'debug', 'page', 'limit', 'offset'],
            ...['force_retrain', 'user_name', 'format', 'case_id', 'num_responses', 'accuracy_rate', 'confidence_bias', 'ai_alignment_alpha', 'x'],
          ),
          hostileText,
          { maxKeys: 3 },
        ),
        body,
      });

      await fc.assert(
        fc.asyncProperty(call, async ({ params, query, body }) => {
          let path = route.path;
          paramNames.forEach((name, i) => (path = path.replace(`:${name}`, params[i]!)));
          const search = new URLSearchParams(query).toString();
          const before = await databaseFingerprint();
          const headers: Record<string, string> = isAdminPath(path) ? { Cookie: admin } : {};
          const init: RequestInit = { method: route.method, headers };
          if (route.method !== 'GET' && route.method !== 'HEAD') {
            headers['Content-Type'] = 'raw' in body ? body.type : 'application/json';
            init.body = 'raw' in body ? body.raw : JSON.stringify(body.json);
          }
          const res = await api(`${path}${search ? `?${search}` : ''}`, init);
          calls++;
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
          const text = await res.text();
          const where = `${route.method} ${path}?${search} → ${res.status} ${text.slice(0, 200)}`;
          expect(res.status, where).toBeLessThan(500);
          if (res.status >= 400) {
            const parsed = JSON.parse(text) as { detail?: unknown };
            expect(typeof parsed.detail === 'string' || Array.isArray(parsed.detail), where).toBe(true);
            expect(await databaseFingerprint(), `${where}: a refused call changed the database`).toBe(before);
          } else {
            // An accepted all-data export goes on writing in the background (its Workflow): the
            // next call is judged once it is done, so its steps are not taken for that call's doing.
            await exportsSettled();
          }
        }),
        { numRuns: perRoute, seed: 20261122 },
      );
    }
    expect(calls).toBeGreaterThanOrEqual(TOTAL_RUNS);
    console.log(`fuzz: ${calls} calls over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
    // A budget, not a speed check: the 10,000 calls ran past 10 minutes on this 2-core VM.
  }, 1_500_000);

  it('keeps the valid templates valid, so the mutations above start from calls the Worker accepts', async () => {
    for (const [key, make] of valid) {
      if (key.includes('admin/login')) continue;
      const res = await postJson(key.replace(/^POST /, ''), make());
      expect(res.status, `${key}: ${await res.clone().text()}`).toBeLessThan(500);
      expect([200, 201, 409], key).toContain(res.status);
    }
  });
});
