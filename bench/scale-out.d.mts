/** Of several rounds, each configuration's run with the median req/s. */
export function medianRuns<R extends { rps: number }>(rounds: { one: R; many: R; oneAccount: R }[]): { one: R; many: R; oneAccount: R };

/** The serial fraction of a many-process run against one process's req/s, with its Amdahl projection at 4, 16 and 64 processes. */
export function serialFraction(run: { serialMs: number; members: number; wallMs: number }, oneProcessRps: number): { holdPerRequestMs: number; s: number; lockBusy: number; projection: [number, number][] };
