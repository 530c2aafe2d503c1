/**
 * Free text a participant types: tab and newline are the only control characters it may hold,
 * and it must be well-formed UTF-16. A null byte or a lone surrogate would be stored as raw
 * bytes (and SQLite's `length()` stops at a null), so both are refused with a 400 instead.
 * Kept free of zod: the post-survey's answer rules, which the browser runs, use it too.
 */
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export const isCleanText = (text: string) => !CONTROL.test(text) && !LONE_SURROGATE.test(text);

/** What the browser keeps of typed or pasted text, so an answer is never refused for a stray character. */
export const cleanText = (text: string) => text.replace(new RegExp(CONTROL.source, 'g'), '').replace(new RegExp(LONE_SURROGATE.source, 'g'), '');

export const CLEAN_TEXT_MESSAGE = 'text may not contain control characters (other than tab and newline) or invalid Unicode';
