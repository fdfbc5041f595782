import type { RecordedExchange } from './recorded-exchange.js';

/** The files of a recording folder. */
export const HAR_FILE = 'recording.har';
export const SCENARIO_FILE = 'scenario.json';

export function readRecording(_from: string, _options: { mustExist?: boolean } = {}): RecordedExchange[] {
  throw new Error('pending the i26-har converter');
}

export function writeRecording(_dir: string, _exchanges: readonly RecordedExchange[]): void {
  throw new Error('pending the i26-har converter');
}
