import type { Context } from 'hono';

/** The client's address as Cloudflare's edge reports it; absent in local runs without a proxy. */
export const clientIp = (c: Context): string | null => c.req.header('CF-Connecting-IP') ?? null;

export const userAgent = (c: Context): string | null => c.req.header('User-Agent')?.slice(0, 512) ?? null;
