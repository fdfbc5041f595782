import { formatRecordSummary, startRecorder } from '../record/recorder.js';
import { parseArgs, portOf, type FlagSpec } from './parse-args.js';
import { LOG_FLAG_LINES, startUpstreamCommand, UPSTREAM_FLAGS } from './upstream-command.js';

const RECORD_FLAGS = { ...UPSTREAM_FLAGS, out: { type: 'string' } } satisfies Record<string, FlagSpec>;

export const RECORD_USAGE = `Usage: shipmock record --upstream URL --out DIR [options]

The validating proxy (shipmock proxy) that keeps what it forwards: every exchange goes to the
real service, is checked against the contract, answered unchanged, and recorded in DIR as a HAR
1.2 file and a scenario that answers the recorded responses (replay them with
shipmock serve --replay DIR). Recording again into DIR adds only what is new; secrets
(Authorization, tokens, client and webhook secrets) are shortened before anything is written.
Ctrl-C / SIGTERM writes the folder and prints a summary, listing every recorded answer that
breaks the contract.

  --upstream URL           the real service (its path prefix is kept)
  --out DIR                the recording folder (created if missing; one recorder at a time)
  --port N                 port to listen on (default 4020; 0 picks a free port)
  --host ADDR              address to bind (default 127.0.0.1)
  --contract FILE          OpenAPI 3.1 contract to validate against (default: the bundled one)
  --timeout-ms N           upstream timeout, answered 502 after it (default 30000)
${LOG_FLAG_LINES}`;

/** `shipmock record`: runs until SIGINT/SIGTERM, then writes the folder and prints the summary (exit 0). */
export async function recordCommand(argv: string[]): Promise<void> {
  const { flags, positionals } = parseArgs(argv, RECORD_FLAGS);
  if (flags.help) {
    process.stdout.write(RECORD_USAGE);
    return;
  }
  const { upstream, logger } = startUpstreamCommand('record', flags, positionals);
  if (!flags.out) throw new Error('shipmock record needs --out DIR (the recording folder); see --help');
  const recorder = await startRecorder({
    upstream,
    out: flags.out,
    port: portOf('--port', flags.port, 4020),
    host: flags.host,
    contract: flags.contract,
    timeoutMs: flags['timeout-ms'],
    logger,
  });
  const { found } = recorder.summary();
  logger.info({ url: recorder.url, upstream, out: flags.out, found }, 'shipmock recording proxy listening');
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    recorder.close().then(
      (summary) => {
        process.stdout.write(formatRecordSummary(summary, flags.out!));
        process.exit(0);
      },
      (error: Error) => {
        process.stderr.write(`shipmock record: the recording could not be written: ${error.message}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', shutdown);
  process.on('SIGTERM', shutdown);
}
