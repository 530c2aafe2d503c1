/**
 * A crowd of simulated participants on a local Worker, as the load benchmarks drive it: set up
 * (entered and consented; one in ten through the pre-experiment, trained and into the main
 * experiment), then answering at study pace.
 */
import {
  ApiClient,
  preAnswerFor,
  datasetFor,
  enter,
  initialJudgement,
  integratedAnswer,
  newAcknowledged,
  preCaseIds,
  sendMainCase,
  sendPreAnswer,
  sendPreBatch,
  trainAndStartMain,
  type Acknowledged,
} from '../../test/helpers/simulated-participant';

export const ANSWER_EVERY_MS = 9000;
export const MAIN_SHARE = 0.1;
const SETUP_CONCURRENCY = 16;

export type Participant = { ack: Acknowledged; client: ApiClient; cases: string[]; next: number; main: boolean };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Caller i's own client address, as a crowd behind Cloudflare's edge would have. */
const clientIpFor = (i: number) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;

/** `make(i)` for i in 0..count-1, at most `size` at a time. */
export async function inBatches<T>(count: number, size: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

/** `count` participants on the Worker at `baseUrl`, each with its own client address. */
export function setUpCrowd(baseUrl: string, count: number, onTiming?: (endpoint: string, ms: number, status: number) => void): Promise<Participant[]> {
  return inBatches(count, SETUP_CONCURRENCY, async (i): Promise<Participant> => {
    const client = new ApiClient({ baseUrl, clientIp: clientIpFor(i), onTiming });
    const ack = newAcknowledged(datasetFor(i));
    await enter(client, ack);
    const preIds = await preCaseIds(client, ack.id);
    const main = i % Math.round(1 / MAIN_SHARE) === 0;
    if (!main) return { ack, client, cases: preIds, next: 0, main };
    await sendPreBatch(client, ack, preIds);
    return { ack, client, cases: await trainAndStartMain(client, ack), next: 0, main };
  });
}

/** `count` participants on the Worker at `baseUrl`, each through the pre-experiment and its model to the main experiment. */
export function setUpMainCrowd(baseUrl: string, count: number): Promise<MainParticipant[]> {
  return inBatches(count, SETUP_CONCURRENCY, async (i): Promise<MainParticipant> => {
    const client = new ApiClient({ baseUrl, clientIp: clientIpFor(i) });
    const ack = newAcknowledged(datasetFor(i));
    await enter(client, ack);
    await sendPreBatch(client, ack, await preCaseIds(client, ack.id));
    return { ack, client, cases: await trainAndStartMain(client, ack), next: 0, main: true, step: 0, served: null };
  });
}

/** The calls of one main case, in the order a participant's page makes them. */
export const MAIN_STEPS = ['reveal', 'explanation_viewed', 'final', 'stored_case'] as const;
export type MainStep = (typeof MAIN_STEPS)[number];
type Served = Record<string, unknown> & { prediction: 0 | 1 };
export type MainParticipant = Participant & { step: number; served: Served | null };

/**
 * A main-experiment participant's next call, as the page makes them: the request that reveals the
 * AI (carrying the initial judgement), the checkpoint of the explanation's viewing time, the
 * checkpoint of the final judgement, and the stored case. Returns which call it was and its wall
 * time, or null when the participant's cases are done.
 */
export async function nextMainCall(p: MainParticipant): Promise<{ step: MainStep; ms: number } | null> {
  const caseId = p.cases[p.next];
  if (!caseId) return null;
  const step = MAIN_STEPS[p.step]!;
  const at = { session_id: p.ack.id, case_id: caseId };
  const choices = { initial: preAnswerFor(p.ack.id, caseId).prediction, trust: 1 + (p.next % 5) };
  const started = performance.now();
  if (step === 'reveal') p.served = (await p.client.call<Served>('POST', '/api/human-aligned-explanation', { ...at, ...initialJudgement(choices.initial) })).body;
  else if (step === 'explanation_viewed') await p.client.call('POST', '/api/experiments/main/trial-progress', { step, ...at, explanation_viewing_time_ms: 5000 });
  else if (step === 'final') await p.client.call('POST', '/api/experiments/main/trial-progress', { step, ...at, final_prediction: p.served!.prediction, final_confidence: 4, final_response_time_ms: 2000 });
  else await p.client.call('POST', '/api/experiments/main/integrated-response', integratedAnswer(p.ack.id, caseId, p.served!, choices));
  const ms = performance.now() - started;
  if (step === 'stored_case') {
    p.ack.main.set(caseId, { initial: choices.initial, final: p.served!.prediction, trust: choices.trust });
    p.next++;
  }
  p.step = (p.step + 1) % MAIN_STEPS.length;
  return { step, ms };
}

/** Every main participant makes its next call about every ANSWER_EVERY_MS for `seconds` (a case's four calls about half a minute apart). */
export async function mainCallsAtStudyPace(participants: MainParticipant[], seconds: number): Promise<{ ms: Record<MainStep, number[]>; errors: string[] }> {
  const ms = Object.fromEntries(MAIN_STEPS.map((s) => [s, [] as number[]])) as Record<MainStep, number[]>;
  const { errors } = await atPace(participants.length, seconds, async (i) => {
    const call = await nextMainCall(participants[i]!);
    if (call) ms[call.step].push(call.ms);
    return call !== null;
  });
  return { ms, errors };
}

/** One answer: a main case (explanation and save) or a pre-experiment answer. */
export function answerNext(p: Participant): Promise<void> {
  const caseId = p.cases[p.next++]!;
  return p.main ? sendMainCase(p.client, p.ack, caseId, p.next - 1) : sendPreAnswer(p.client, p.ack, caseId);
}

/** One main case of every main participant, so the Worker's model cache holds their models. */
export async function warmModelCache(participants: Participant[]): Promise<void> {
  const mains = participants.filter((p) => p.main);
  await inBatches(mains.length, SETUP_CONCURRENCY, (i) => answerNext(mains[i]!));
}

/**
 * `callers` callers for `seconds`, each acting about every ANSWER_EVERY_MS (±10%), their starts
 * spread evenly over the first interval; `act(i, n)` is caller i's n-th act and returns false
 * when it has nothing left to do. Resolves with each act's wall time and the errors of failed ones.
 */
async function atPace(callers: number, seconds: number, act: (i: number, n: number) => Promise<boolean>): Promise<{ ms: number[]; errors: string[] }> {
  const ms: number[] = [];
  const errors: string[] = [];
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async (_, i) => {
      let due = started + (i / callers) * ANSWER_EVERY_MS;
      for (let n = 0; ; n++) {
        const wait = due - performance.now();
        if (wait > 0) await sleep(wait);
        if (performance.now() >= deadline) return;
        const t = performance.now();
        try {
          if (!(await act(i, n))) return;
          ms.push(performance.now() - t);
        } catch (err) {
          errors.push(String(err));
        }
        due += ANSWER_EVERY_MS * (0.9 + 0.2 * Math.random());
      }
    }),
  );
  return { ms, errors };
}

/** Every participant answers at study pace for `seconds`, until its cases run out. */
export async function atStudyPace(participants: Participant[], seconds: number): Promise<{ answerMs: number[]; errors: string[] }> {
  const { ms, errors } = await atPace(participants.length, seconds, async (i) => {
    const p = participants[i]!;
    if (p.next >= p.cases.length) return false;
    await answerNext(p);
    return true;
  });
  return { answerMs: ms, errors };
}

/**
 * The floor under the answer latency: `clients` callers at study pace, each answer posted as a
 * single row to the minimal insert-only Worker at `url` (bench/d1-ceiling).
 */
export function insertsAtStudyPace(url: string, clients: number, seconds: number): Promise<{ ms: number[]; errors: string[] }> {
  return atPace(clients, seconds, async (i, n) => {
    const sessionId = `FLOOR${String(i).padStart(3, '0')}`;
    const caseId = `case-${n}`;
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'CF-Connecting-IP': clientIpFor(i) },
      body: JSON.stringify({ session_id: sessionId, case_id: caseId, ...preAnswerFor(sessionId, caseId) }),
    });
    await res.arrayBuffer();
    if (res.status !== 201) throw new Error(`the floor Worker answered ${res.status}`);
    return true;
  });
}
