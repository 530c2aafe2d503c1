/**
 * No answer is ever lost: each answer is written to local storage first (the spec's
 * per-participant saved responses, one per key: a case ID, or an attempt ID for the
 * understanding test) and sent until the server acknowledges it,
 * across failures, reloads and closed tabs. An answer the server refuses for good (a 4xx) leaves
 * the outbox, so it can never block the others or be re-sent forever: it is logged with the
 * whole answer and its reason, and listed in the state for the screen to show.
 */
import { logger } from './error-log';
import { readStorage, storageKeys, writeStorage } from './storage-keys';

export type OutboxAnswer = {
  case_id: string;
  case_number: number;
  prediction: 0 | 1;
  confidence: number;
  response_time_ms: number;
  reasoning?: string;
  answered_at: string;
};

type Entry<A> = A & { acked: boolean };

export type RefusedAnswer = { key: string; reason: string };

export type OutboxState = { total: number; pending: number; refused: readonly RefusedAnswer[]; sending: boolean; lastError: string | null };

/** Sends one answer; resolves when the server stored it (or already had it). */
export type SendAnswer<A = OutboxAnswer> = (answer: A) => Promise<void>;

/** Local storage key of a participant's saved pre-experiment answers (part 1 §3). */
export const preOutboxKey = (participantId: string) => `${storageKeys.preResponsesPrefix}${participantId}`;

/** Thrown by a sender when the server refused the answer for good (a 4xx). */
export class AnswerRejected extends Error {
  override readonly name = 'AnswerRejected';
}

const RETRY_DELAYS_MS = [1000, 2000, 5000, 10000, 30000];

export class AnswerOutbox<A extends object = OutboxAnswer> {
  private entries: Entry<A>[];
  private listeners = new Set<(state: OutboxState) => void>();
  private sending = false;
  private inflight: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private lastError: string | null = null;
  private refused: RefusedAnswer[] = [];
  private readonly onOnline = () => void this.flush();

  /**
   * @param key local storage key of this outbox
   * @param keyOf the answer's identity: a second answer with the same key is ignored
   */
  constructor(
    private readonly key: string,
    private readonly send: SendAnswer<A>,
    private readonly keyOf: (answer: A) => string = (answer) => (answer as unknown as OutboxAnswer).case_id,
    private readonly target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  ) {
    this.entries = this.load();
    this.target.addEventListener('online', this.onOnline);
  }

  private load(): Entry<A>[] {
    try {
      const parsed = JSON.parse(readStorage(this.key) ?? '[]') as (Entry<A> & { rejected?: string })[];
      if (!Array.isArray(parsed)) return [];
      // Entries saved as refused by an older version leave here, once, with their reason.
      const kept: Entry<A>[] = [];
      for (const { rejected, ...entry } of parsed) {
        if (rejected) this.refuse(entry as unknown as A, rejected);
        else kept.push(entry as Entry<A>);
      }
      return kept;
    } catch {
      logger.fallback('outbox', 'saved answers could not be read; starting an empty outbox');
      return [];
    }
  }

  private save(): void {
    writeStorage(this.key, JSON.stringify(this.entries));
  }

  state(): OutboxState {
    return {
      total: this.entries.length,
      pending: this.entries.filter((e) => !e.acked).length,
      refused: this.refused,
      sending: this.sending,
      lastError: this.lastError,
    };
  }

  subscribe(listener: (state: OutboxState) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private notify(): void {
    const state = this.state();
    for (const listener of this.listeners) listener(state);
  }

  /** Every answer saved in this browser, acknowledged or not (refused ones have left). */
  answers(): A[] {
    return this.entries.map(({ acked: _acked, ...answer }) => answer as unknown as A);
  }

  private nextPending(): Entry<A> | undefined {
    return this.entries.find((e) => !e.acked);
  }

  /** Records a refused answer's reason (the caller has taken it out) and logs the whole answer. */
  private refuse(answer: A, reason: string): void {
    const key = this.keyOf(answer);
    this.refused = [...this.refused, { key, reason }];
    logger.production('answer_refused', `answer for ${key} was refused: ${reason}`, { ...answer, reason });
  }

  has(key: string): boolean {
    return this.entries.some((e) => this.keyOf(e) === key);
  }

  /** Saves an answer (a second one for the same case is ignored) and starts sending. */
  add(answer: A): void {
    if (!this.has(this.keyOf(answer))) {
      this.entries.push({ ...answer, acked: false });
      this.save();
      this.notify();
    }
    void this.flush();
  }

  /** Marks answers the server already holds (learned from resume data) as acknowledged. */
  acknowledge(keys: Iterable<string>): void {
    const known = new Set(keys);
    let changed = false;
    for (const e of this.entries) {
      if (!e.acked && known.has(this.keyOf(e))) {
        e.acked = true;
        changed = true;
      }
    }
    if (changed) {
      this.save();
      this.notify();
    }
  }

  /**
   * Sends pending answers one by one until all are acknowledged or the network fails. A call
   * while a run is under way joins it (the run also picks up answers added meanwhile).
   */
  flush(): Promise<void> {
    this.inflight ??= this.run().finally(() => {
      this.inflight = null;
    });
    return this.inflight;
  }

  private async run(): Promise<void> {
    this.sending = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    this.notify();
    try {
      // Re-read each time: answers added meanwhile join this run, refused ones have left.
      for (let entry = this.nextPending(); entry; entry = this.nextPending()) {
        try {
          await this.send(entry);
          entry.acked = true;
          this.failures = 0;
          this.lastError = null;
          this.save();
          this.notify();
        } catch (err) {
          if (err instanceof AnswerRejected) {
            this.entries = this.entries.filter((e) => e !== entry);
            this.refuse(entry, err.message);
            this.save();
            this.notify();
            continue;
          }
          this.lastError = err instanceof Error ? err.message : String(err);
          this.scheduleRetry();
          return;
        }
      }
    } finally {
      this.sending = false;
      this.notify();
    }
  }

  private scheduleRetry(): void {
    const delay = RETRY_DELAYS_MS[Math.min(this.failures, RETRY_DELAYS_MS.length - 1)]!;
    this.failures++;
    this.retryTimer = setTimeout(() => void this.flush(), delay);
  }

  dispose(): void {
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.target.removeEventListener('online', this.onOnline);
    this.listeners.clear();
  }
}
