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
