import { useState } from 'preact/hooks';
import { admin } from './api';
import { ErrorText, Notice, Section, time, useAction, useLoad } from './common';
import type { ClockView, DueList } from './types';

const STEPS = [
  { label: '+15m', duration: 'PT15M' },
  { label: '+4h', duration: 'PT4H' },
  { label: '+1d', duration: 'P1D' },
];

export function ClockTab() {
  const clock = useLoad(() => admin<ClockView>('clock'), [], 1000);
  const due = useLoad(() => admin<DueList>('clock/due?limit=50'), [], 2000);
  const [duration, setDuration] = useState('PT1H');
  const [target, setTarget] = useState('');
  const action = useAction();
  const after = () => {
    clock.refresh();
    due.refresh();
  };
  const advance = (d: string) => action.run(() => admin('clock/advance', { method: 'POST', body: { duration: d } }), `Advanced by ${d}.`).then(after);
  const set = () => action.run(() => admin('clock', { method: 'PUT', body: { now: target } }), `Clock set to ${target}.`).then(after);
  return (
    <Section title="Clock">
      <ErrorText error={clock.error} />
      <p class="clock-now">
        Virtual time <strong data-testid="virtual-now">{time(clock.data?.now)}</strong> UTC · {clock.data?.mode === 'manual' ? 'manual: stands still until advanced' : 'real: runs with wall time plus an offset'}
      </p>
      {clock.data?.timerFailures && (
        <p class="notice error">
          {clock.data.timerFailures.count} timers failed; last: {clock.data.timerFailures.last?.error}
        </p>
      )}
      <div class="clock-actions">
        {STEPS.map((s) => (
          <button key={s.duration} type="button" onClick={() => advance(s.duration)} aria-label={`Advance ${s.label.slice(1)}`}>
            {s.label}
          </button>
        ))}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void advance(duration);
          }}
        >
          <label>
            ISO duration <input value={duration} onInput={(e) => setDuration(e.currentTarget.value)} pattern="P.*" required />
          </label>
          <button type="submit">Advance</button>
        </form>
        <form
          onSubmit={(e) => {
            e.preventDefault();
            void set();
          }}
        >
          <label>
            Set to <input value={target} placeholder="2026-03-01T08:00:00Z" onInput={(e) => setTarget(e.currentTarget.value)} required />
          </label>
          <button type="submit">Set</button>
        </form>
      </div>
      <Notice message={action.message} />
      <h3>Due next</h3>
      <ErrorText error={due.error} />
      {due.data?.items.length === 0 && <p class="muted">Nothing is waiting on the clock.</p>}
      <table class="due">
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">What</th>
            <th scope="col">Subject</th>
            <th scope="col">Account</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {due.data?.items.map((item, i) => (
            <tr key={i}>
              <td>{time(item.at)}</td>
              <td>{item.kind}</td>
              <td>
                <code>{item.subject}</code>
              </td>
              <td>{item.accountId?.slice(0, 8) ?? ''}</td>
              <td>{item.detail ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </Section>
  );
}
