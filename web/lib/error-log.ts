/**
 * The client-side error log of part 2 §8: every reported error with its type, message, time,
 * context and severity; alert callbacks on critical errors; a health score; error rates over
 * 5/15/30/60-minute windows; repeated-error warnings; and a projected 24-hour risk level.
 */

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export type ErrorEntry = {
  type: string;
  message: string;
  timestamp: number;
  context: Record<string, unknown>;
  severity: Severity;
};

export type HealthStatus = 'healthy' | 'degraded' | 'critical';
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

export const RATE_WINDOWS_MINUTES = [5, 15, 30, 60] as const;
/** This many errors of one type make a repeated-error warning. */
export const REPEAT_THRESHOLD = 3;
/** Entries beyond this are dropped oldest first, so a failure loop cannot exhaust memory. */
const MAX_ENTRIES = 500;

const MINUTE = 60_000;

export type HealthReport = {
  score: number;
  status: HealthStatus;
  totalErrors: number;
  criticalErrors: number;
  errorsLastMinute: number;
  /** Errors per minute in each window. */
  rates: Record<(typeof RATE_WINDOWS_MINUTES)[number], number>;
  repeatedTypes: { type: string; count: number }[];
  projected24h: number;
  risk: RiskLevel;
};

export class ErrorLog {
  private entries: ErrorEntry[] = [];
  private alertCallbacks = new Set<(entry: ErrorEntry) => void>();
  private listeners = new Set<() => void>();
  /** Bumped on every change, for React's useSyncExternalStore. */
  version = 0;

  constructor(private readonly now: () => number = () => Date.now()) {}

  /** Records an error; a critical one is passed to every alert callback. */
  report(type: string, message: string, context: Record<string, unknown> = {}, severity: Severity = 'medium'): ErrorEntry {
    const entry: ErrorEntry = { type, message, timestamp: this.now(), context, severity };
    this.entries.push(entry);
    if (this.entries.length > MAX_ENTRIES) this.entries.splice(0, this.entries.length - MAX_ENTRIES);
    if (severity === 'critical') {
      for (const callback of this.alertCallbacks) callback(entry);
    }
    this.changed();
    return entry;
  }

  /** Notifies on every new entry or clear; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    this.version++;
    for (const listener of this.listeners) listener();
  }

  /** Registers a callback for critical errors; returns its unsubscribe function. */
  onCritical(callback: (entry: ErrorEntry) => void): () => void {
    this.alertCallbacks.add(callback);
    return () => this.alertCallbacks.delete(callback);
  }

  list(): readonly ErrorEntry[] {
    return this.entries;
  }

  clear(): void {
    this.entries = [];
    this.changed();
  }

  private countSince(minutes: number): number {
    const since = this.now() - minutes * MINUTE;
    return this.entries.filter((e) => e.timestamp >= since).length;
  }

  health(): HealthReport {
    const totalErrors = this.entries.length;
    const criticalErrors = this.entries.filter((e) => e.severity === 'critical').length;
    const errorsLastMinute = this.countSince(1);

    let score = 100;
    if (totalErrors > 10) score -= 30;
    else if (totalErrors > 5) score -= 15;
    if (criticalErrors > 0) score -= 50;
    if (errorsLastMinute > 2) score -= 25;
    score = Math.max(0, score);
    const status: HealthStatus = score >= 80 ? 'healthy' : score >= 50 ? 'degraded' : 'critical';

    const rates = Object.fromEntries(
      RATE_WINDOWS_MINUTES.map((w) => [w, this.countSince(w) / w]),
    ) as HealthReport['rates'];

    const byType = new Map<string, number>();
    for (const e of this.entries) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
    const repeatedTypes = [...byType]
      .filter(([, count]) => count >= REPEAT_THRESHOLD)
      .map(([type, count]) => ({ type, count }));

    // The last hour's rate, extrapolated over a day.
    const projected24h = Math.round(rates[60] * 60 * 24);
    const risk: RiskLevel =
      projected24h > 1000 ? 'critical' : projected24h > 500 ? 'high' : projected24h > 100 ? 'medium' : 'low';

    return { score, status, totalErrors, criticalErrors, errorsLastMinute, rates, repeatedTypes, projected24h, risk };
  }
}

/** The app's one log; features report into it and the status page reads it. */
export const errorLog = new ErrorLog();

/**
 * Logging levels of part 2 §8. `debug` has no effect; `fallback` records that a degraded path was
 * taken; `production` is a critical error that alerts.
 */
export const logger = {
  info: (message: string, context?: Record<string, unknown>) => console.info(message, context ?? {}),
  warn: (message: string, context?: Record<string, unknown>) => console.warn(message, context ?? {}),
  error: (type: string, message: string, context?: Record<string, unknown>) => {
    console.error(message, context ?? {});
    errorLog.report(type, message, context, 'high');
  },
  debug: (_message: string, _context?: Record<string, unknown>) => {},
  fallback: (type: string, message: string, context?: Record<string, unknown>) => {
    console.warn(message, context ?? {});
    errorLog.report(type, message, context, 'low');
  },
  production: (type: string, message: string, context?: Record<string, unknown>) => {
    console.error(message, context ?? {});
    errorLog.report(type, message, context, 'critical');
  },
};
