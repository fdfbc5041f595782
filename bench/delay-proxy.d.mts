/** The bench's delay proxy (bench/delay-proxy.mjs): a TCP proxy holding each chunk `delayMs` each way. */
export function startDelayProxy(options: { target: { host: string; port: number }; delayMs?: number; port?: number }): Promise<{ port: number; connections: () => number; held: () => { chunks: number; ms: number }; close: () => Promise<void> }>;
