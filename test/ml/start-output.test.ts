/** What `npm start` prints: one line per step with its time, and a closing box that says where everything is. */
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { closingBox, step, toolOutput } from '../../scripts/lib/start-output';

describe('npm start output', () => {
  it('prints one line per step with its time, in a log and in a terminal (where a progress line shows meanwhile), and marks a failed step', async () => {
    const written: string[] = [];
    let clock = 0;
    const now = () => clock;
    const log = { live: false, write: (text: string) => void written.push(text) };
    const value = await step('Building the web app', () => ((clock = 12_345), 42), log, now);
    expect(value).toBe(42);
    expect(written.join('')).toBe('✓ Building the web app (12 s)\n');
    clock = 0;
    await expect(step('Seeding', () => Promise.reject(new Error('no R2')), log, () => (clock += 500))).rejects.toThrow('no R2');
    expect(written.at(-1)).toBe('✗ Seeding (0.5 s)\n');

    // In a terminal the result replaces the progress line; lines the step prints come above the result.
    const terminal: string[] = [];
    const live = { live: true, write: (text: string) => void terminal.push(text) };
    clock = 0;
    await step('Migrations', () => void (clock = 800), live, now);
    expect(terminal.join('')).toBe('▸ Migrations…\r\x1b[2K✓ Migrations (0.8 s)\n');
    terminal.length = 0;
    await step('Preparing', (print) => print('    compas: up to date'), live, now);
    expect(terminal.join('')).toBe('▸ Preparing…\n    compas: up to date\n✓ Preparing (0.0 s)\n');
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
