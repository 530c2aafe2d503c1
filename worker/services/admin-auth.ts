/**
 * Server-side admin sessions. The spec's client-side password gate is a known weakness; here the
 * password is a Worker secret, the browser receives an opaque HttpOnly cookie, and only the
 * token's SHA-256 is stored, so a leaked database row cannot be replayed as a session.
 */
import { and, eq, gt, isNull } from 'drizzle-orm';
import type { Db } from '../db/client';
import { adminSessions } from '../db/schema';
import type { AdminRole } from '../schemas/admin-roles';

export const ADMIN_COOKIE = 'xdl_admin';

const encoder = new TextEncoder();

async function sha256Hex(value: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', encoder.encode(value));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/**
 * Compares fixed-length digests over every byte, so neither the time taken nor an early exit
 * reveals how much of the password matched.
 */
export async function passwordMatches(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([
    crypto.subtle.digest('SHA-256', encoder.encode(given)),
    crypto.subtle.digest('SHA-256', encoder.encode(expected)),
  ]);
  const x = new Uint8Array(a);
  const y = new Uint8Array(b);
  let difference = 0;
  for (let i = 0; i < x.length; i++) difference |= x[i]! ^ y[i]!;
  return difference === 0;
}

export async function createAdminSession(
  db: Db,
  input: { hours: number; ipAddress: string | null; userAgent: string | null; now: Date; role: AdminRole },
): Promise<{ token: string; expiresAt: string }> {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const token = btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  const expiresAt = new Date(input.now.getTime() + input.hours * 3_600_000).toISOString();
  await db.insert(adminSessions).values({
    tokenHash: await sha256Hex(token),
    role: input.role,
    ipAddress: input.ipAddress,
    userAgent: input.userAgent,
    createdAt: input.now.toISOString(),
    expiresAt,
  });
  return { token, expiresAt };
}

/** The live session a token belongs to, or null when unknown, expired or revoked. */
export async function findAdminSession(db: Db, token: string, now: Date) {
  return (
    (await db
      .select({ expiresAt: adminSessions.expiresAt, role: adminSessions.role })
      .from(adminSessions)
      .where(
        and(
          eq(adminSessions.tokenHash, await sha256Hex(token)),
          isNull(adminSessions.revokedAt),
          gt(adminSessions.expiresAt, now.toISOString()),
        ),
      )
      .get()) ?? null
  );
}

export async function revokeAdminSession(db: Db, token: string, now: Date): Promise<void> {
  await db
    .update(adminSessions)
    .set({ revokedAt: now.toISOString() })
    .where(eq(adminSessions.tokenHash, await sha256Hex(token)));
}
