import { adminHeaders, adminUrl } from './api';
import type { JournalBatch } from './types';

export type StreamStatus = 'connecting' | 'live' | 'reconnecting';

/**
 * Reads GET /__admin/journal/stream (server-sent events) with fetch rather than EventSource,
 * which cannot send the X-Admin-Key header. Reconnects after a drop, asking for what it missed.
 */
export function streamJournal(onBatch: (batch: JournalBatch) => void, onStatus: (status: StreamStatus) => void): () => void {
  const controller = new AbortController();
  let lastSeq = 0;
  const run = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(adminUrl(`journal/stream?after=${lastSeq}`), { headers: adminHeaders(), signal: controller.signal });
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        onStatus('live');
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice(6)).join('\n');
            if (!data || !/^event: entries$/m.test(block)) continue;
            const batch = JSON.parse(data) as JournalBatch;
            if (batch.entries.length) lastSeq = batch.entries[batch.entries.length - 1].seq;
            onBatch(batch);
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      onStatus('reconnecting');
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  };
  onStatus('connecting');
  void run();
  return () => controller.abort();
}
