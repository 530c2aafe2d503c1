/**
 * The participant texts come in two parts per language, split at build time from the one file a
 * translator edits (ja.json, en.json): the shell, which the first screen and the banners around
 * every screen use, and the study screens' texts, fetched with the first screen that needs them.
 * So the entry page's download carries about a fifth of the texts.
 */
export const TEXT_PARTS = ['shell', 'screens'] as const;
export type TextPart = (typeof TEXT_PARTS)[number];

/** What the shell holds: whole sections, or single keys (`section.key`) a shell screen borrows. */
export const SHELL_TEXTS: readonly string[] = [
  'app',
  'language',
  'common.loading',
  'common.dismiss',
  'common.copy',
  'common.copied',
  'common.colon',
  'errors.http',
  'entry',
  'withdraw.link',
  'consent.roles',
  'consent.person',
  // What the entry page says of a participation this browser holds, and of a failed call.
  'resume.title',
  'resume.screenedOut',
  'resume.toCompletion',
  'resume.toScreenedOut',
  'recruitment.stopped',
];

type Texts = { [key: string]: unknown };

/** One part of a language's texts: the shell's sections and keys, or everything else. */
export function textPart(texts: Texts, part: TextPart): Texts {
  const out: Texts = {};
  for (const [section, value] of Object.entries(texts)) {
    if (SHELL_TEXTS.includes(section)) {
      if (part === 'shell') out[section] = value;
      continue;
    }
    const borrowed = SHELL_TEXTS.filter((entry) => entry.startsWith(`${section}.`)).map((entry) => entry.slice(section.length + 1));
    const picked = Object.entries(value as Texts).filter(([key]) => borrowed.includes(key) === (part === 'shell'));
    if (picked.length > 0) out[section] = Object.fromEntries(picked);
  }
  return out;
}
