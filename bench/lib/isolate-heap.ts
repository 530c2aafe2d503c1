/**
 * The Worker isolate's own JS heap, read through the V8 inspector `wrangler dev` opens for it
 * (`Runtime.getHeapUsage`): what Cloudflare's 128 MB per-isolate limit applies to, apart from the
 * local D1 and R2 that share the workerd process.
 */
type Pending = (message: { result?: unknown; error?: { message: string } }) => void;

/** V8 flags for a workerd whose Worker `liveBytes` can collect (`gc()` exists only with them). */
export const EXPOSE_GC_ENV = { MINIFLARE_WORKERD_V8_FLAGS: '--expose-gc' };

export async function connectIsolateHeap(inspectorPort: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  // The inspector proxy only admits local or DevTools origins; Node's WebSocket (undici) takes headers.
  const ws = new WebSocket(url, { headers: { Origin: 'http://localhost' } } as unknown as string[]);
  const pending = new Map<number, Pending>();
  let nextId = 0;
  // The Worker's JS context, announced on connecting: workerd evaluates nothing without its id.
  let contextId: number | undefined;
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; method?: string; params?: { context?: { id: number } }; result?: unknown };
    if (message.method === 'Runtime.executionContextCreated') contextId = message.params!.context!.id;
    if (message.id !== undefined) pending.get(message.id)?.(message), pending.delete(message.id);
  };
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const call = <T>(method: string, params?: object) =>
    new Promise<T>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, (message) => (message.error ? reject(new Error(`${method}: ${message.error.message}`)) : resolve(message.result as T)));
      ws.send(JSON.stringify({ id, method, params }));
    });
  const usedBytes = async () => (await call<{ usedSize: number }>('Runtime.getHeapUsage')).usedSize;
  return {
    /** Bytes of the isolate's heap in use now, garbage not yet collected included. */
    usedBytes,
    /**
     * Bytes the isolate still holds right after a full collection it is made to run (workerd
     * answers no HeapProfiler.collectGarbage; its workerd must run with EXPOSE_GC_ENV).
     */
    liveBytes: async () => {
      for (let waited = 0; contextId === undefined && waited < 5000; waited += 50) await new Promise((r) => setTimeout(r, 50));
      const { result } = await call<{ result: { value?: unknown } }>('Runtime.evaluate', {
        contextId,
        expression: 'typeof gc === "function" ? (gc(), "collected") : "no gc"',
      });
      if (result.value !== 'collected') throw new Error('the Worker has no gc(): start its workerd with EXPOSE_GC_ENV');
      return await usedBytes();
    },
    close: () => ws.close(),
  };
}
