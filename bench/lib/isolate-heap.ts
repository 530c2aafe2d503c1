/**
 * The Worker isolate's own JS heap, read through the V8 inspector `wrangler dev` opens for it
 * (`Runtime.getHeapUsage`): what Cloudflare's 128 MB per-isolate limit applies to, apart from the
 * local D1 and R2 that share the workerd process.
 */
type Pending = (result: unknown) => void;

export async function connectIsolateHeap(inspectorPort: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json`)).json()) as { webSocketDebuggerUrl: string }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (!url) throw new Error(`no inspector target on port ${inspectorPort}`);
  // The inspector proxy only admits local or DevTools origins; Node's WebSocket (undici) takes headers.
  const ws = new WebSocket(url, { headers: { Origin: 'http://localhost' } } as unknown as string[]);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const pending = new Map<number, Pending>();
  let nextId = 0;
  ws.onmessage = (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: unknown };
    if (message.id !== undefined) pending.get(message.id)?.(message.result), pending.delete(message.id);
  };
  const call = <T>(method: string) =>
    new Promise<T>((resolve) => {
      const id = ++nextId;
      pending.set(id, resolve as Pending);
      ws.send(JSON.stringify({ id, method }));
    });
  return {
    /** Bytes of the isolate's heap in use now. */
    usedBytes: async () => (await call<{ usedSize: number; totalSize: number }>('Runtime.getHeapUsage')).usedSize,
    close: () => ws.close(),
  };
}
