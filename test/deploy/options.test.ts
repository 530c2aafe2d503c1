/** `npm run deploy` with an option it does not know: one line saying so, the usage, no stack trace. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../ml-assets/lib/paths';

const deploy = (...args: string[]) =>
  spawnSync(path.join(projectRoot, 'node_modules', '.bin', 'tsx'), [path.join(projectRoot, 'scripts', 'deploy.ts'), ...args], { encoding: 'utf8', cwd: projectRoot });

describe('npm run deploy options', () => {
  it('refuses an unknown option with one line and the usage, and explains wrangler’s --temporary hint', () => {
    const r = deploy('--temporary');
    expect(r.status).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines[0]).toBe("npm run deploy: Unknown option '--temporary'");
    expect(r.stderr).toContain('use --local');
    expect(r.stderr).toContain('usage: npm run deploy');
    expect(r.stderr).not.toMatch(/\bat .+\(.+:\d+:\d+\)|ERR_PARSE_ARGS/);
    const other = deploy('--bogus');
    expect(other.status).toBe(2);
    expect(other.stderr).not.toContain('--temporary is an option');
  });

  it('says in its usage where the rehearsal keeps its state by default, as the script does', () => {
    const r = deploy('--bogus');
    expect(r.stderr).toContain('default: .wrangler/rehearsal/<env>');
    expect(r.stderr).not.toContain('temporary directory');
  });
});
