/**
 * The client-side error log of part 2 §8: every reported error with its type, message, time,
 * context and severity, and alert callbacks on critical errors. What the status page makes of it
 * (the health score, rates, warnings and risk) is in error-health.ts.
 */

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export type ErrorEntry = {
  type: string;
  message: string;
  timestamp: number;
  context: Record<string, unknown>;
  severity: Severity;
};

/** Entries beyond this are dropped oldest first, so a failure loop cannot exhaust memory. */
const MAX_ENTRIES = 500;

export class ErrorLog {
  private entries: ErrorEntry[] = [];
  private alertCallbacks = new Set<(entry: ErrorEntry) => void>();
  private listeners = new Set<() => void>();
  /** Bumped on every change, for React's useSyncExternalStore. */
  version = 0;

  /** `now` is the log's clock (a test's own, or the time). */
  constructor(readonly now: () => number = () => Date.now()) {}

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
