import { describe, expect, it, vi } from 'vitest';
import { healthOf } from '../../web/lib/error-health';
import { ErrorLog } from '../../web/lib/error-log';

const MINUTE = 60_000;

function logAt(start = 1_000_000_000) {
  let now = start;
  const log = new ErrorLog(() => now);
  return { log, advance: (ms: number) => (now += ms) };
}

describe('ErrorLog', () => {
  it('stores type, message, timestamp, context and severity', () => {
    const { log } = logAt(5);
    log.report('network', 'offline', { url: '/api/status' }, 'high');
    expect(log.list()).toEqual([
      { type: 'network', message: 'offline', timestamp: 5, context: { url: '/api/status' }, severity: 'high' },
    ]);
  });

  it('calls alert callbacks on critical errors only, until unsubscribed', () => {
    const { log } = logAt();
    const alert = vi.fn();
    const off = log.onCritical(alert);
    log.report('save', 'lost', {}, 'high');
    expect(alert).not.toHaveBeenCalled();
    log.report('save', 'lost', {}, 'critical');
    expect(alert).toHaveBeenCalledTimes(1);
    off();
    log.report('save', 'lost', {}, 'critical');
    expect(alert).toHaveBeenCalledTimes(1);
  });

  it('starts healthy at 100', () => {
    expect(healthOf(logAt().log)).toMatchObject({ score: 100, status: 'healthy', risk: 'low' });
  });

  it('takes 15 above 5 errors and 30 above 10, spread out so the per-minute rule does not fire', () => {
    const { log, advance } = logAt();
    for (let i = 0; i < 6; i++) {
      log.report(`t${i}`, 'x');
      advance(MINUTE);
    }
    expect(healthOf(log).score).toBe(85);
    for (let i = 0; i < 5; i++) {
      log.report(`u${i}`, 'x');
      advance(MINUTE);
    }
    expect(healthOf(log)).toMatchObject({ score: 70, status: 'degraded' });
  });

  it('takes 50 for any critical error and 25 for more than 2 errors in the last minute', () => {
    const { log } = logAt();
    log.report('a', 'x', {}, 'critical');
    expect(healthOf(log)).toMatchObject({ score: 50, status: 'degraded' });
    log.report('b', 'x');
    log.report('c', 'x');
    expect(healthOf(log)).toMatchObject({ score: 25, status: 'critical', errorsLastMinute: 3 });
  });

  it('computes per-minute rates over 5, 15, 30 and 60 minute windows', () => {
    const { log, advance } = logAt();
    log.report('old', 'x');
    advance(20 * MINUTE);
    log.report('recent', 'x');
    log.report('recent', 'x');
    advance(MINUTE);
    const { rates } = healthOf(log);
    expect(rates[5]).toBeCloseTo(2 / 5);
    expect(rates[15]).toBeCloseTo(2 / 15);
    expect(rates[30]).toBeCloseTo(3 / 30);
    expect(rates[60]).toBeCloseTo(3 / 60);
  });

  it('warns when one type repeats 3 or more times', () => {
    const { log } = logAt();
    log.report('save', 'x');
    log.report('save', 'x');
    expect(healthOf(log).repeatedTypes).toEqual([]);
    log.report('save', 'x');
    expect(healthOf(log).repeatedTypes).toEqual([{ type: 'save', count: 3 }]);
  });

  it.each([
    [4, 'low'],
    [5, 'medium'],
    [21, 'high'],
    [42, 'critical'],
  ] as const)('projects %i errors in the last hour to a 24 h risk of %s', (errors, risk) => {
    const { log } = logAt();
    for (let i = 0; i < errors; i++) log.report(`t${i % 2}`, 'x');
    const health = healthOf(log);
    expect(health.projected24h).toBe(errors * 24);
    expect(health.risk).toBe(risk);
  });

  it('notifies subscribers of every change', () => {
    const { log } = logAt();
    const listener = vi.fn();
    log.subscribe(listener);
    log.report('a', 'x');
    log.clear();
    expect(listener).toHaveBeenCalledTimes(2);
    expect(log.version).toBe(2);
  });
});
