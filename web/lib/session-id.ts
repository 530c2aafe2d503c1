/** Session / participant ID rules of part 1 §3 and §5. */

const SHORT_ID = /^[A-Z0-9]{2,8}$/;
const LEGACY_ID = /^session_[A-Za-z0-9_-]{2,192}$/;

/**
 * Characters of generated IDs: the ten digits and the letters without O, I and L, so no two of
 * them look alike when a participant copies the ID by hand (0/O, 1/I/L).
 */
export const ID_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTUVWXYZ';
/** Largest multiple of the alphabet's size that fits a byte; bytes at or above it are skipped. */
const UNBIASED_LIMIT = Math.floor(256 / ID_ALPHABET.length) * ID_ALPHABET.length;

/** Letters left out of the alphabet, read as the digit they are mistaken for. */
const LOOKALIKES: Record<string, string> = { O: '0', I: '1', L: '1' };

/** 2–8 uppercase letters or digits, or `session_…` of 10–200 letters, digits, `-` and `_`. */
export const isValidSessionId = (id: string) => SHORT_ID.test(id) || (id.length <= 200 && LEGACY_ID.test(id));

/**
 * A new 8-character participant ID from the browser's cryptographic source. Rejection sampling
 * keeps every character equally likely; the server still guarantees uniqueness.
 */
export function generateParticipantId(random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b)): string {
  let id = '';
  while (id.length < 8) {
    for (const byte of random(new Uint8Array(16))) {
      if (byte < UNBIASED_LIMIT && id.length < 8) id += ID_ALPHABET[byte % ID_ALPHABET.length];
    }
  }
  return id;
}

/**
 * An ID for one creation request (32 hex digits), so the server can tell a resend after a lost
 * answer from another person's request. getRandomValues works outside secure contexts too,
 * unlike randomUUID.
 */
export const newRequestId = () => Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');

/**
 * What a participant typed into an ID field: letters and digits only, upper-cased, at most 8 (part 1
 * §5). A synthetic participant's name (`test_…`, the registration tools') keeps its letters' case,
 * `_` and `-`, as the researcher resumes it from the dashboard.
 */
export function normaliseParticipantId(raw: string): string {
  const trimmed = raw.trim();
  if (/^test_/i.test(trimmed)) return `test_${trimmed.slice(5).replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40)}`;
  return trimmed
    .replace(/[^a-z0-9]/gi, '')
    .toUpperCase()
    .slice(0, 8);
}

/**
 * The IDs a typed (normalised) ID may stand for, most likely first: with look-alike letters read
 * as the digits of the ID alphabet (O→0, I/L→1), then as typed, for IDs issued before the
 * alphabet left those letters out. Nothing is rewritten unless a lookup finds it.
 */
export function participantIdCandidates(typed: string): string[] {
  const mapped = typed.replace(/[OIL]/g, (c) => LOOKALIKES[c]!);
  return mapped === typed ? [typed] : [mapped, typed];
}

/**
 * The stored session ID when it passes the format check; an invalid one (for instance planted by
 * the debug helper) is reported and treated as absent, so the caller generates a new ID.
 */
export function readStoredSessionId(read: (key: string) => string | null, key: string, onInvalid: (id: string) => void): string | null {
  const id = read(key);
  if (id === null) return null;
  if (isValidSessionId(id)) return id;
  onInvalid(id);
  return null;
}
