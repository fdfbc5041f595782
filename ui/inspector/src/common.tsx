import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { describeError } from './api';
import type { AccountSummary } from './types';

/** Loads data with `load`, again whenever `deps` change or `refresh()` is called; every `everyMs` when given. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[], everyMs?: number) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  useEffect(() => {
    let live = true;
    load().then(
      (value) => live && (setData(value), setError(undefined)),
      (e: unknown) => live && setError(describeError(e)),
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  useEffect(() => {
    if (!everyMs) return;
    const timer = setInterval(refresh, everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return { data, error, refresh };
}

/** Runs an action and shows what it came to (done or the problem). */
export function useAction() {
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>(undefined);
  const run = useCallback(async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      setMessage({ ok: true, text: done });
    } catch (e) {
      setMessage({ ok: false, text: describeError(e) });
    }
  }, []);
  return { message, run, clear: () => setMessage(undefined) };
}

export function Notice({ message }: { message?: { ok: boolean; text: string } }) {
  if (!message) return null;
  return (
    <p class={message.ok ? 'notice ok' : 'notice error'} role={message.ok ? 'status' : 'alert'}>
      {message.text}
    </p>
  );
}

export function ErrorText({ error }: { error?: string }) {
  return error ? <p class="notice error" role="alert">{error}</p> : null;
}

/** JSON for people: indented, in a scrollable block. */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    <pre class="code" aria-label={label} tabIndex={0}>
      {typeof value === 'string' ? value : JSON.stringify(value, null, 2)}
    </pre>
  );
}

/** A text body, pretty-printed when it is JSON. */
export function BodyView({ body, label }: { body?: string; label: string }) {
  if (body === undefined || body === '') return <p class="muted">(no body)</p>;
  let shown = body;
  try {
    shown = JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    shown = body;
  }
  return <JsonView value={shown} label={label} />;
}

export function HeaderTable({ headers, caption }: { headers?: Record<string, string>; caption: string }) {
  const rows = Object.entries(headers ?? {});
  if (!rows.length) return <p class="muted">(no headers)</p>;
  return (
    <table class="headers">
      <caption>{caption}</caption>
      <tbody>
        {rows.map(([name, value]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{value}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="panel" aria-label={title}>
      <header class="panel-head">
        <h2>{title}</h2>
        {actions && <div class="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** 2026-03-01T08:00:00.000Z → 2026-03-01 08:00:00 (UTC, like the mock's clock). */
export function time(iso?: string): string {
  return iso ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '';
}

/**
 * A time in a table row: the time of day while it falls on today's date (UTC, like the mock's
 * clock), date and time once the virtual clock has left today (time travel).
 */
export function rowTime(iso?: string, today = new Date().toISOString().slice(0, 10)): string {
  const full = time(iso);
  return full.startsWith(`${today} `) ? full.slice(11) : full;
}

export function short(id?: string): string {
  return id ? id.slice(0, 8) : '';
}

export function statusClass(status?: number): string {
  if (status === undefined) return 'status-none';
  return `status-${Math.floor(status / 100)}xx`;
}

/** A choice of "every account" or one of them (scenario scopes). */
export function AccountSelect({ label, value, accounts, onChange }: { label: string; value: string; accounts: AccountSummary[]; onChange: (accountId: string) => void }) {
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">every account</option>
        {accounts.map((a) => (
          <option key={a.accountId} value={a.accountId}>
            {a.name} ({a.accountId.slice(0, 8)})
          </option>
        ))}
      </select>
    </label>
  );
}
