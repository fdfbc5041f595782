// Preloaded into a measured `shipmock serve` by the RSS benches (node --expose-gc --import this):
// SIGUSR2 runs a full garbage collection, so the bench can read the memory the process keeps,
// apart from the garbage V8 has not collected yet (its heap grows to a few times what is live
// between full collections), and prints the main thread's heap then (with its pid: the workers
// of `--workers N` inherit the hook and the primary's stderr). A bench hook only:
// shipmock itself never handles SIGUSR2.
process.on('SIGUSR2', () => {
  // Twice: the first collection's finalizers free more for the second. Then once more a second
  // later: V8 gives the pages it freed back to the system from a background task.
  globalThis.gc();
  globalThis.gc();
  setTimeout(() => {
    globalThis.gc();
    const { heapUsed, heapTotal, external } = process.memoryUsage();
    process.stderr.write(`bench: full gc done ${JSON.stringify({ pid: process.pid, heapUsed, heapTotal, external })}\n`);
  }, 1000);
});
