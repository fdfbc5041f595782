/**
 * A long-running command (serve, proxy, record, compare) keeps working when the reader of its
 * output goes away: `shipmock serve | head -5`, a log collector that restarts, a terminal that
 * closed. Node reports the broken pipe as an 'error' event on process.stdout / process.stderr,
 * and an 'error' event nobody listens to ends the process — a mock that dies because nobody
 * reads its request log. From the first error on, that stream's output is dropped; requests,
 * deliveries and the control plane go on (the journal and the inspector still show them).
 * @example keepRunningWhenOutputCloses(); // first thing a long-running command does
 */
export function keepRunningWhenOutputCloses(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (stream.listeners('error').includes(dropOutput)) continue;
    stream.on('error', dropOutput);
  }
}

/** Nothing to do but stop writing: the stream is gone, and there is no one left to tell. */
function dropOutput(this: NodeJS.WriteStream): void {
  // Later writes to a destroyed stream fail quietly (their error goes to this listener too).
  this.destroy();
}
