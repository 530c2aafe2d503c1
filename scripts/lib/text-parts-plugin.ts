/**
 * Vite: `import texts from './ja.json?part=shell'` gives one part of a language's texts
 * (web/i18n/parts.ts), so the SPA downloads each part when it needs it while translators keep one
 * file per language.
 */
import { readFileSync } from 'node:fs';
import type { Plugin } from 'vite';
import { TEXT_PARTS, textPart, type TextPart } from '../../web/i18n/parts';

const PART_QUERY = /\?part=(\w+)$/;

export function textParts(): Plugin {
  return {
    name: 'xdl-text-parts',
    enforce: 'pre',
    load(id) {
      const match = PART_QUERY.exec(id);
      if (!match || !id.endsWith(`.json${match[0]}`)) return undefined;
      const part = match[1] as TextPart;
      if (!TEXT_PARTS.includes(part)) throw new Error(`${id}: no text part "${part}" (${TEXT_PARTS.join(', ')})`);
      const file = id.slice(0, -match[0].length);
      this.addWatchFile(file);
      const texts = textPart(JSON.parse(readFileSync(file, 'utf8')), part);
      // A JSON.parse of a string literal parses faster than the same object as a literal.
      return { code: `export default JSON.parse(${JSON.stringify(JSON.stringify(texts))});`, map: null };
    },
  };
}
