/** The first `bytes` bytes of a text's SHA-256 as hex: short, stable names for content (model files, configurations). */
export async function shortSha256Hex(text: string, bytes = 6): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest.subarray(0, bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}
