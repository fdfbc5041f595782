/** Of several rounds, each configuration's run with the median req/s. */
export function medianRuns<R extends { rps: number }>(rounds: { one: R; many: R; oneAccount: R }[]): { one: R; many: R; oneAccount: R };

/** The serial fraction of a many-process run against one process's req/s, with its Amdahl projection at 4, 16 and 64 processes. */
export function serialFraction(run: { serialMs: number; members: number; wallMs: number }, oneProcessRps: number): { holdPerRequestMs: number; s: number; lockBusy: number; projection: [number, number][] };

/** How the bench starts its delay proxy: at real-time priority (`chrt -f 10`) where this user may, else as any process. */
export function proxyPriority(): { prefix: string[]; label: string };

/** bench/delay-proxy.mjs in a process of its own at `priority`: its port, the URL of its counters, its pid and a stop. */
export function spawnDelayProxy(targetPort: number, delayMs: number, priority: { prefix: string[] }): Promise<{ port: number; counters: string; pid: number; stop: () => void }>;
