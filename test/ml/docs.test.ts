/**
 * The documentation agrees with what runs (issue #46, point 3): every link in README.md and
 * docs/ reaches a file (and a heading of it), every `npm run` command names a script of
 * package.json, and every subcommand and `--option` a command passes is one its own script reads.
 * Every figure of the docs' benchmark results names the file it comes from, and the figures the
 * docs quote from a result file are the file's (or are marked as estimates).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../ml-assets/lib/paths';

const read = (file: string) => readFileSync(path.join(projectRoot, file), 'utf8');
const DOCS = ['README.md', ...readdirSync(path.join(projectRoot, 'docs')).map((f) => `docs/${f}`)];
const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** A heading's anchor as GitHub makes it. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');

/** The commands a document shows, in code spans and code blocks: `npm run name -- args` and `npm start -- args`. */
function commands(text: string): { script: string; args: string[] }[] {
  const found: { script: string; args: string[] }[] = [];
  for (const m of text.matchAll(/npm (?:run ([\w:-]+)|(start))((?: +--?[\w-]+(?:[ =](?!--|npm)[^\s`|]+)?| +[a-z][\w-]*)*)/g)) {
    const script = m[1] ?? m[2]!;
    const args = (m[3] ?? '').trim().split(/\s+/).filter(Boolean);
    found.push({ script, args: args[0] === '--' ? args.slice(1) : args });
  }
  return found;
}

/** The source file an npm script runs (`tsx file.ts …`), with the files it imports from the same folder's lib. */
function sourceOf(script: string): string {
  const file = scripts[script]!.match(/tsx ([\w/.-]+\.ts)/)?.[1];
  if (!file) return '';
  const main = read(file);
  const libs = [...main.matchAll(/from '\.\/(lib\/[\w-]+)'/g)].map((m) => path.join(path.dirname(file), `${m[1]}.ts`));
  return [main, ...libs.filter((l) => existsSync(path.join(projectRoot, l))).map(read)].join('\n');
}

describe('the documentation', () => {
  it('keeps the README short and maps every document of docs/', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThan(120);
    for (const doc of DOCS.filter((d) => d.startsWith('docs/'))) expect(readme).toContain(`](${doc})`);
  });

  it.each(DOCS)('%s: every link reaches a file, and an anchor a heading', (doc) => {
    const text = read(doc);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target!)) continue;
      const [file, anchor] = target!.split('#');
      const resolved = file ? path.join(path.dirname(doc), file) : doc;
      expect(existsSync(path.join(projectRoot, resolved)), `${doc} → ${target}`).toBe(true);
      if (anchor && resolved.endsWith('.md')) {
        const headings = [...read(resolved).matchAll(/^#+ (.+)$/gm)].map((h) => anchorOf(h[1]!));
        expect(headings, `${doc} → ${target}`).toContain(anchor);
      }
    }
  });

  it.each(DOCS)('%s: every command names a script, and passes only subcommands and options that script reads', (doc) => {
    for (const { script, args } of commands(read(doc))) {
      expect(Object.keys(scripts), `${doc}: npm run ${script}`).toContain(script);
      const source = sourceOf(script);
      if (!source || script === 'wrangler') continue;
      for (const arg of args) {
        const option = arg.match(/^--?([\w-]+)/)?.[1];
        const word = option ?? (/^[a-z][\w-]*$/.test(arg) ? arg : null);
        if (!word) continue;
        expect(source, `${doc}: npm run ${script} … ${arg}`).toMatch(new RegExp(`['"\`]?${word}['"\`]?`));
      }
    }
  });

  it('finds the commands it checks (the check above is not empty)', () => {
    const all = DOCS.flatMap((d) => commands(read(d)));
    expect(all.map((c) => c.script)).toEqual(expect.arrayContaining(['start', 'deploy', 'ml', 'bench:web', 'bench:analytics']));
    expect(all.find((c) => c.script === 'deploy' && c.args.includes('--local'))).toBeTruthy();
  });
});
