/**
 * No answer is ever lost: each answer is written to local storage first (the spec's
 * per-participant saved responses, one per case ID) and sent until the server acknowledges it,
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

type Entry = OutboxAnswer & { acked: boolean };

export type RefusedAnswer = { case_id: string; reason: string };

export type OutboxState = { total: number; pending: number; refused: readonly RefusedAnswer[]; sending: boolean; lastError: string | null };

/** Sends one answer; resolves when the server stored it (or already had it). */
export type SendAnswer = (answer: OutboxAnswer) => Promise<void>;

/** Thrown by a sender when the server refused the answer for good (a 4xx). */
export class AnswerRejected extends Error {
  override readonly name = 'AnswerRejected';
}

const RETRY_DELAYS_MS = [1000, 2000, 5000, 10000, 30000];

export class AnswerOutbox {
  private entries: Entry[];
  private readonly key: string;
  private listeners = new Set<(state: OutboxState) => void>();
  private sending = false;
  private inflight: Promise<void> | null = null;
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private failures = 0;
  private lastError: string | null = null;
  private refused: RefusedAnswer[] = [];
  private readonly onOnline = () => void this.flush();

  constructor(
    participantId: string,
    private readonly send: SendAnswer,
    private readonly target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  ) {
    this.key = `${storageKeys.preResponsesPrefix}${participantId}`;
    this.entries = this.load();
    this.target.addEventListener('online', this.onOnline);
  }

  private load(): Entry[] {
    try {
      const parsed = JSON.parse(readStorage(this.key) ?? '[]') as (Entry & { rejected?: string })[];
      if (!Array.isArray(parsed)) return [];
      // Entries saved as refused by an older version leave here, once, with their reason.
      const kept: Entry[] = [];
      for (const { rejected, ...entry } of parsed) {
        if (rejected) this.refuse(entry, rejected);
        else kept.push(entry);
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
  answers(): OutboxAnswer[] {
    return this.entries.map(({ acked: _acked, ...answer }) => answer);
  }

  private nextPending(): Entry | undefined {
    return this.entries.find((e) => !e.acked);
  }

  /** Records a refused answer's reason (the caller has taken it out) and logs the whole answer. */
  private refuse(answer: OutboxAnswer, reason: string): void {
    this.refused = [...this.refused, { case_id: answer.case_id, reason }];
    logger.production('answer_refused', `answer for ${answer.case_id} was refused: ${reason}`, { ...answer, reason });
  }

  has(caseId: string): boolean {
    return this.entries.some((e) => e.case_id === caseId);
  }

  /** Saves an answer (a second one for the same case is ignored) and starts sending. */
  add(answer: OutboxAnswer): void {
    if (!this.has(answer.case_id)) {
      this.entries.push({ ...answer, acked: false });
      this.save();
      this.notify();
    }
    void this.flush();
  }

  /** Marks answers the server already holds (learned from resume data) as acknowledged. */
  acknowledge(caseIds: Iterable<string>): void {
    const known = new Set(caseIds);
    let changed = false;
    for (const e of this.entries) {
      if (!e.acked && known.has(e.case_id)) {
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
