/** What `npm start` prints: one line per step with its time, and a closing box that says where everything is. */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closingBox, step, toolOutput } from '../../scripts/lib/start-output';

describe('npm start output', () => {
  it('prints a progress line, then the step with its time, and marks a failed step', async () => {
    const lines: string[] = [];
    let clock = 0;
    const now = () => clock;
    const value = await step('Building the web app', () => ((clock = 12_345), 42), (l) => lines.push(l), now);
    expect(value).toBe(42);
    expect(lines).toEqual(['▸ Building the web app…', '✓ Building the web app (12 s)']);
    clock = 0;
    await expect(step('Seeding', () => Promise.reject(new Error('no R2')), (l) => lines.push(l), () => (clock += 500))).rejects.toThrow('no R2');
    expect(lines.at(-1)).toBe('✗ Seeding (0.5 s)');
  });

  it('ends with a box: the study, the dashboard, the password once and where to read it again', () => {
    const box = closingBox({ url: 'http://127.0.0.1:8787', devVars: '/p/.dev.vars', password: 'Secret-123', logFile: '/p/.wrangler/start.log' });
    const lines = box.split('\n');
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
    expect(box).toContain('Dashboard:  http://127.0.0.1:8787/admin');
    expect(box).toContain('Admin password (new): Secret-123');
    expect(box).toContain('grep ADMIN_PASSWORD /p/.dev.vars');
    expect(box).toContain('/p/.wrangler/start.log');
    expect(closingBox({ url: 'http://x', devVars: '/d', password: null, logFile: null })).not.toContain('(new)');
  });

  it('sends the tools’ output to the log file unless --verbose', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'xdl-start-')), 'start.log');
    const quiet = toolOutput(false, file);
    expect(quiet.note).toBe(file);
    expect(Array.isArray(quiet.stdio)).toBe(true);
    quiet.close();
    expect(readFileSync(file, 'utf8')).toContain('--- npm start ');
    expect(toolOutput(true, file)).toMatchObject({ stdio: 'inherit', note: null });
  });
});
