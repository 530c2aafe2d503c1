/**
 * Hashed build files (`/assets/*`): served from the static assets, except that a name with no file
 * answers 404. The SPA fallback would otherwise answer it with the app's shell (200, HTML), so a
 * stale or mistyped script reference would run HTML as JavaScript instead of failing visibly.
 * Nothing Vite puts under /assets/ is a page, so an HTML answer there can only be that fallback.
 */
export async function hashedAsset(request: Request, env: Pick<Env, 'ASSETS'>): Promise<Response> {
  const res = await env.ASSETS.fetch(request);
  if (res.ok && res.headers.get('content-type')?.startsWith('text/html')) {
    return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' } });
  }
  return res;
}
