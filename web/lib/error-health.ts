/**
 * Part 2 §8's reading of the client error log, for the status page: a health score, error rates
 * over 5/15/30/60-minute windows, repeated-error warnings and a projected 24-hour risk level.
 */
import type { ErrorLog } from './error-log';

export type HealthStatus = 'healthy' | 'degraded' | 'critical';
export type RiskLevel = 'low' | 'medium' | 'high' | 'critical';

export const RATE_WINDOWS_MINUTES = [5, 15, 30, 60] as const;
/** This many errors of one type make a repeated-error warning. */
export const REPEAT_THRESHOLD = 3;

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

/** The log's health now (by its clock). */
export function healthOf(log: ErrorLog): HealthReport {
  const entries = log.list();
  const countSince = (minutes: number) => {
    const since = log.now() - minutes * MINUTE;
    return entries.filter((e) => e.timestamp >= since).length;
  };
  const totalErrors = entries.length;
  const criticalErrors = entries.filter((e) => e.severity === 'critical').length;
  const errorsLastMinute = countSince(1);

  let score = 100;
  if (totalErrors > 10) score -= 30;
  else if (totalErrors > 5) score -= 15;
  if (criticalErrors > 0) score -= 50;
  if (errorsLastMinute > 2) score -= 25;
  score = Math.max(0, score);
  const status: HealthStatus = score >= 80 ? 'healthy' : score >= 50 ? 'degraded' : 'critical';

  const rates = Object.fromEntries(
    RATE_WINDOWS_MINUTES.map((w) => [w, countSince(w) / w]),
  ) as HealthReport['rates'];

  const byType = new Map<string, number>();
  for (const e of entries) byType.set(e.type, (byType.get(e.type) ?? 0) + 1);
  const repeatedTypes = [...byType]
    .filter(([, count]) => count >= REPEAT_THRESHOLD)
    .map(([type, count]) => ({ type, count }));

  // The last hour's rate, extrapolated over a day.
  const projected24h = Math.round(rates[60] * 60 * 24);
  const risk: RiskLevel =
    projected24h > 1000 ? 'critical' : projected24h > 500 ? 'high' : projected24h > 100 ? 'medium' : 'low';

  return { score, status, totalErrors, criticalErrors, errorsLastMinute, rates, repeatedTypes, projected24h, risk };
}
