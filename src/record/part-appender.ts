import { close, openSync, write } from 'node:fs';

/** A buffer this large at most is kept for the next write; a larger batch gets one of its own. */
const MAX_KEPT_BUFFER = 4 * 1024 * 1024;

export interface PartAppender {
  /** Appends the text (UTF-8) after everything appended before it. */
  append(text: string): void;
  /** Stops appending: what waits is left out (the caller wrote it elsewhere); the file is closed once a write under way is done. */
  end(): void;
}

/**
 * An append-only file written one batch at a time, in order: the text that comes while a write
 * is under way waits for it and goes in the next one. Each batch is encoded into a buffer that
 * is reused: a recorder's batches are two-byte JSON (the `…` of a shortened secret), and
 * `Buffer.from` — what a write stream does with a string — took fresh pages and the slow
 * encoder for each. The first write error is told to `onError`, and nothing is appended after it.
 *
 * @example
 * const part = openPartAppender('recordings/staging/recording.har.part', (error) => logger.error({ err: error }));
 * part.append(lines.join(''));
 * part.end();
 */
export function openPartAppender(path: string, onError: (error: Error) => void): PartAppender {
  const fd = openSync(path, 'a', 0o600);
  let buffer = Buffer.allocUnsafeSlow(64 * 1024);
  let waiting = '';
  let busy = false;
  let ended = false;
  let failed = false;
  const release = () => close(fd, () => undefined);
  const next = () => {
    busy = false;
    if (ended || failed) {
      if (ended) release();
      return;
    }
    if (!waiting) return;
    const text = waiting;
    waiting = '';
    // UTF-16 code units take at most 3 bytes each in UTF-8.
    const target = buffer.length >= text.length * 3 ? buffer : Buffer.allocUnsafeSlow(text.length * 3);
    if (target.length <= MAX_KEPT_BUFFER) buffer = target;
    busy = true;
    writeFrom(target, 0, target.write(text, 'utf8'));
  };
  const writeFrom = (bytes: Buffer, from: number, to: number) => {
    write(fd, bytes, from, to - from, null, (error, written) => {
      if (error) {
        failed = true;
        onError(error);
        next();
      } else if (from + written < to) writeFrom(bytes, from + written, to);
      else next();
    });
  };
  return {
    append(text) {
      if (ended || failed) return;
      waiting += text;
      if (!busy) next();
    },
    end() {
      if (ended) return;
      ended = true;
      waiting = '';
      if (!busy) release();
    },
  };
}
