/**
 * `npm run deploy -- --local`: the whole deploy rehearsed with no network, into a fresh local
 * state directory; then that state served as the deployed copy runs (`wrangler dev --env
 * production`): one participant from entry to completion, the production mode's refusals, the
 * daily backup through wrangler's scheduled-event test route, and the Worker within the Free
 * plan's size limit.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeployTarget } from '../../ml-assets/lib/wrangler-config';
import { FREE_PLAN_WORKER_LIMIT_BYTES } from '../../scripts/lib/worker-bundle';
import { freeLoopbackPort, killLocalWorker, offlineEnv, startLocalWorker } from '../../ml-assets/lib/wrangler';
import { projectRoot } from '../../ml-assets/lib/paths';
import { auditLogResponseSchema, type AuditLogResponse } from '../../worker/schemas/admin';
import { studyCodes } from '../../worker/study-codes';
import { ApiClient, enter, newAcknowledged, preCaseIds, sendMainCase, sendPostSurvey, sendPreBatch, trainAndStartMain } from '../helpers/simulated-participant';

const PASSWORD = 'rehearsal-admin-password';
const stateDir = mkdtempSync(path.join(os.tmpdir(), 'xdl-rehearsal-'));
let output = '';
let worker: ChildProcess;
let baseUrl = '';
/** The participant who completes the study, and the verification code they were given. */
const completed = { id: '', verificationCode: '' };

const wrangler = (args: string[]) =>
  execFileSync(path.join(projectRoot, 'node_modules', '.bin', 'wrangler'), args, { cwd: projectRoot, env: offlineEnv(), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

beforeAll(async () => {
  // What a previous rehearsal's serving left behind: the rehearsal says it deletes it before it does.
  writeFileSync(path.join(stateDir, 'collected-while-serving'), 'answers');
  output = execFileSync(path.join(projectRoot, 'node_modules', '.bin', 'tsx'), ['scripts/deploy.ts', '--local', '--persist-to', stateDir], {
    cwd: projectRoot,
    env: offlineEnv({ CI: 'true', XDL_ADMIN_PASSWORD: PASSWORD }),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await freeLoopbackPort();
  worker = await startLocalWorker({
    port,
    persistTo: stateDir,
    wranglerEnv: 'production',
    envFile: path.join(stateDir, 'secrets.env'),
    testScheduled: true,
    detached: true,
    stdio: 'ignore',
  });
  baseUrl = `http://127.0.0.1:${port}`;
}, 20 * 60_000);

afterAll(async () => {
  if (worker) await killLocalWorker(worker, 'SIGTERM');
  rmSync(stateDir, { recursive: true, force: true });
});

describe('npm run deploy -- --local', () => {
  it('runs every step and bundles a Worker within the Free plan limit', () => {
    for (const step of ['Preparing datasets', 'Database and buckets', 'Migrations', 'Cases and AI models', 'Admin password', 'Web app and Worker', 'Rehearsal done']) {
      expect(output).toContain(`▸ ${step}`);
    }
    const gzipKiB = Number(/(\d+) KiB gzipped/.exec(output)?.[1]);
    expect(gzipKiB).toBeGreaterThan(100);
    expect(gzipKiB * 1024).toBeLessThan(FREE_PLAN_WORKER_LIMIT_BYTES);
    expect(readdirSync(path.join(stateDir, 'bundle'))).toContain('index.js');
    // It said what it deleted before doing so, and prints the serve command with its port.
    expect(output.indexOf(`deleting ${stateDir}`)).toBeGreaterThan(-1);
    expect(output.indexOf(`deleting ${stateDir}`)).toBeLessThan(output.indexOf(`local state in ${stateDir}`));
    expect(readdirSync(stateDir)).not.toContain('collected-while-serving');
    expect(output).toMatch(/Serve it as the deployed copy would run \(at http:\/\/127\.0\.0\.1:8787\): npm run wrangler -- dev --env production --port 8787 --persist-to /);
  });

  it('serves the seeded study in production mode: no debug bypass, no error-test tools', async () => {
    const env = (await (await fetch(`${baseUrl}/api/status/environment`)).json()) as { production: boolean; debug_tools: boolean };
    expect(env).toMatchObject({ production: true, debug_tools: false });
    const status = (await (await fetch(`${baseUrl}/api/status`)).json()) as { ml_pipeline: string; ml_models: Record<string, string> };
    expect(Object.values(status.ml_models)).toEqual(['ready', 'ready', 'ready']);
    const client = new ApiClient({ baseUrl, clientIp: '203.0.113.7' });
    const ack = newAcknowledged('compas');
    await enter(client, ack);
    const res = await fetch(`${baseUrl}/api/experiments/main/start?session_id=${ack.id}&debug=true`, { method: 'POST', headers: { 'CF-Connecting-IP': '203.0.113.7' } });
    expect(res.status).toBe(403);
  });

  it('takes one participant from entry to completion, and gives the completion code only then', async () => {
    const client = new ApiClient({ baseUrl, clientIp: '203.0.113.8' });
    const ack = newAcknowledged('adult_income');
    await enter(client, ack);
    const completion = () => fetch(`${baseUrl}/api/post-survey/completion/${ack.id}`, { headers: { 'CF-Connecting-IP': '203.0.113.8' } });
    expect((await completion()).status).toBe(409);
    const pre = await preCaseIds(client, ack.id);
    expect(pre).toHaveLength(200);
    expect(await sendPreBatch(client, ack, pre)).toBe(true);
    const main = await trainAndStartMain(client, ack);
    expect(main).toHaveLength(50);
    for (const [i, caseId] of main.entries()) await sendMainCase(client, ack, caseId, i);
    await sendPostSurvey(client, ack);
    const res = await completion();
    expect(res.status).toBe(200);
    const body = (await res.json()) as { completion_code: string; verification_code: string };
    expect(body.completion_code).toBe(studyCodes.completionCode);
    expect(body.verification_code).toMatch(/^[0-9A-F]{10}$/);
    Object.assign(completed, { id: ack.id, verificationCode: body.verification_code });
  }, 10 * 60_000);

  it("writes the daily backup through wrangler's scheduled-event test route: the all-data export with its codebook", async () => {
    const login = await fetch(`${baseUrl}/api/admin/login`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ password: PASSWORD }) });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    // wrangler's test route for scheduled events (its older /__scheduled path is answered by the SPA's assets).
    const trigger = await fetch(`${baseUrl}/cdn-cgi/handler/scheduled?cron=${encodeURIComponent('30 3 * * *')}`);
    expect(await trigger.text()).toBe('ok');
    let entry: AuditLogResponse['entries'][number] | undefined;
    for (let i = 0; i < 60 && !entry; i++) {
      const log = auditLogResponseSchema.parse(await (await fetch(`${baseUrl}/api/admin/audit-log?limit=50`, { headers: { Cookie: cookie } })).json());
      entry = log.entries.find((e) => e.action === 'scheduled_backup');
      if (!entry) await new Promise((r) => setTimeout(r, 1000));
    }
    expect(entry?.target_id).toMatch(/^exports\/\d{4}-\d{2}-\d{2}\/.+all-data_.+\.zip$/);
    const file = path.join(stateDir, 'backup.zip');
    const bucket = readDeployTarget('production').buckets.exports;
    wrangler(['r2', 'object', 'get', `${bucket}/${entry!.target_id}`, '--file', file, '--local', '--persist-to', stateDir, '--env', 'production']);
    const zip = unzipSync(new Uint8Array(readFileSync(file)));
    expect(Object.keys(zip)).toEqual(expect.arrayContaining(['codebook.csv', 'participants.csv', 'study-configurations.json']));
    const participants = Papa.parse<Record<string, string>>(strFromU8(zip['participants.csv']!), { header: true, skipEmptyLines: true }).data;
    expect(participants.length).toBeGreaterThanOrEqual(2);
    // The researcher matches the submission by the code the participant was shown.
    expect(participants.find((p) => p.user_name === completed.id)?.completion_verification_code).toBe(completed.verificationCode);
  }, 5 * 60_000);

  it('serves hashed assets with a long immutable cache lifetime', async () => {
    const asset = readdirSync(path.join(projectRoot, 'dist', 'client', 'assets')).find((f) => f.endsWith('.js'))!;
    const res = await fetch(`${baseUrl}/assets/${asset}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });

  it('answers a missing hashed file with 404, not the SPA shell, whether fetched by a script tag or opened', async () => {
    for (const mode of ['no-cors', 'navigate']) {
      const res = await fetch(`${baseUrl}/assets/index-00000000.js`, { headers: { 'Sec-Fetch-Mode': mode, Accept: mode === 'navigate' ? 'text/html' : '*/*' } });
      expect(res.status, mode).toBe(404);
      expect(await res.text(), mode).not.toContain('<html');
    }
    // Pages of the SPA still get the shell.
    const page = await fetch(`${baseUrl}/experiment/consent`, { headers: { 'Sec-Fetch-Mode': 'navigate', Accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<div id="root">');
  });
});
