/** Session / participant ID rules of part 1 §3 and §5. */

const SHORT_ID = /^[A-Z0-9]{2,8}$/;
const LEGACY_ID = /^session_[A-Za-z0-9_-]{2,192}$/;
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

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
      // 252 = 7 × 36: bytes at or above it would favour the first characters.
      if (byte < 252 && id.length < 8) id += ALPHABET[byte % 36];
    }
  }
  return id;
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
