import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { MOCK_BASE, admin, adminBlob, adminKey, describeError } from './api';
import { curlCommand, type CurlCommand } from './curl-command';
import { BodyView, ErrorText, HeaderTable, Section, rowTime, short, statusClass, time } from './common';
import { streamJournal, type StreamStatus } from './journal-stream';
import type { JournalEntry, JournalEntryWithExchange as Exchange, Violation } from './types';

/** Rows the page keeps; the journal itself keeps --journal-size. */
const KEPT = 1000;
/** Rows the table draws: under a load test, drawing 1,000 rows four times a second costs the machine more than the mock does. */
const DRAWN = 100;
/** How often arriving rows are drawn, at most. */
const DRAW_EVERY_MS = 1000;

const VERDICT_TEXT: Record<NonNullable<JournalEntry['validation']>, string> = {
  valid: 'valid',
  'invalid-request': 'request invalid',
  'invalid-response': 'response invalid',
  'not-checked': 'not checked',
};

/**
 * The request as a curl command (curl-command.ts: every byte single-quoted, so pasting it runs
 * nothing but curl). Secrets are not in the journal (Authorization shows a few characters), so
 * the command names a $TOKEN the user sets.
 */
export function curlOf(detail: Exchange): CurlCommand {
  const { entry, exchange } = detail;
  // Appended as text, not resolved against the base: a path such as /http://elsewhere.example/
  // would otherwise make a URL of another host, where the user's $TOKEN would go.
  const url = `${MOCK_BASE.href}${entry.path.replace(/^\//, '')}${entry.query ? `?${entry.query}` : ''}`;
  return curlCommand({ method: entry.method, url, headers: Object.entries(exchange?.request.headers ?? {}), body: exchange?.request.body });
}

function ViolationList({ title, violations }: { title: string; violations: Violation[] }) {
  return (
    <div class="violations">
      <h4>{title}</h4>
      {violations.length === 0 ? (
        <p class="muted">none</p>
      ) : (
        <ul>
          {violations.map((v, i) => (
            <li key={i}>
              <code>{v.field}</code> {v.message}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function Detail({ seq, onClose }: { seq: number; onClose: () => void }) {
  const [detail, setDetail] = useState<Exchange | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [copied, setCopied] = useState('');
  useEffect(() => {
    admin<Exchange>(`journal/${seq}`).then(setDetail, (e: unknown) => setError(describeError(e)));
  }, [seq]);
  if (error) return <ErrorText error={error} />;
  if (!detail) return <p class="muted">Loading…</p>;
  const { entry, exchange } = detail;
  const { command: curl, droppedNul } = curlOf(detail);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(curl);
      setCopied('Copied; set TOKEN to a token of that account first.');
    } catch {
      setCopied('The browser refused the clipboard: select the command below.');
    }
  };
  return (
    <section class="detail" aria-label={`Request ${entry.seq}`}>
      <header class="panel-head">
        <h3>
          {entry.method} {entry.path}
          {entry.query ? `?${entry.query}` : ''} → {entry.status ?? entry.outcome}
        </h3>
        <div class="actions">
          <button type="button" onClick={copy}>
            Copy as curl
          </button>
          <button type="button" onClick={onClose}>
            Close
          </button>
        </div>
      </header>
      <p>
        Operation <code>{entry.operationId ?? '—'}</code> · account <code>{entry.accountId ?? '—'}</code> · {entry.latencyMs} ms ·
        request id <code>{entry.requestId}</code>
        {entry.process !== undefined && (
          <>
            {' '}
            · served by process <code>{entry.process}</code>
          </>
        )}
        {entry.problem && (
          <>
            {' '}
            · problem <code>{entry.problem}</code>
          </>
        )}
        {entry.scenarios && <> · scenario {entry.scenarios.join(', ')}</>}
      </p>
      {copied && <p role="status" class="notice ok">{copied}</p>}
      {!exchange && (
        <p class="notice error">
          {entry.process !== undefined
            ? `The headers and bodies of this request are kept only by the process that served it (process ${entry.process}), and only while it has them: open that process's inspector, or this one if it is that process and the exchange was sampled out.`
            : 'The headers and bodies of this request were not kept: the journal keeps every failed request\'s, and up to 200 successful ones a second (a load test\'s requests are sampled), in a few MiB that newer requests overwrite.'}
        </p>
      )}
      <pre class="code curl" aria-label="curl command">{curl}</pre>
      {droppedNul && <p class="muted">The request held NUL characters, which no shell command can pass to curl: the command leaves them out.</p>}
      {exchange?.request.bodyTruncated && <p class="muted">The journal kept the first 16 KiB of the body: the command sends only those.</p>}
      {curl.includes('…') && <p class="muted">Secrets the journal keeps shortened (ending in …) are sent as shown: put the real values in first.</p>}
      <div class="violation-pair" aria-label="Contract violations">
        <ViolationList title="Request violations" violations={exchange?.violations.request ?? []} />
        <ViolationList title="Response violations" violations={exchange?.violations.response ?? []} />
      </div>
      <div class="columns">
        <div>
          <h4>Request</h4>
          <HeaderTable headers={exchange?.request.headers} caption="Request headers" />
          {exchange?.request.binary ? <p class="muted">{exchange.request.binary}, {exchange.request.bodyBytes} bytes</p> : <BodyView body={exchange?.request.body} label="Request body" />}
          {exchange?.request.bodyTruncated && <p class="muted">Cut at 16 KiB of {exchange.request.bodyBytes} bytes.</p>}
        </div>
        <div>
          <h4>Response</h4>
          <HeaderTable headers={exchange?.response?.headers} caption="Response headers" />
          {exchange?.response?.binary ? (
            <p class="muted">
              {exchange.response.binary}, {exchange.response.bodyBytes} bytes (see State for a preview)
            </p>
          ) : (
            <BodyView body={exchange?.response?.body} label="Response body" />
          )}
          {exchange?.response?.bodyTruncated && <p class="muted">Cut at 16 KiB of {exchange.response.bodyBytes} bytes.</p>}
        </div>
      </div>
    </section>
  );
}

export function TrafficTab() {
  const [entries, setEntries] = useState<JournalEntry[]>([]);
  const [held, setHeld] = useState<JournalEntry[]>([]);
  const [paused, setPaused] = useState(false);
  const [status, setStatus] = useState<StreamStatus>('connecting');
  const [skipped, setSkipped] = useState(0);
  const [statusFilter, setStatusFilter] = useState('');
  const [account, setAccount] = useState('');
  const [operation, setOperation] = useState('');
  const [text, setText] = useState('');
  const [open, setOpen] = useState<number | undefined>(undefined);
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

  useEffect(() => {
    // Batches are gathered and drawn together at most every DRAW_EVERY_MS.
    let arrived: JournalEntry[] = [];
    let arrivedSkipped = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const draw = () => {
      timer = undefined;
      const fresh = arrived;
      arrived = [];
      if (arrivedSkipped) setSkipped((n) => n + arrivedSkipped);
      arrivedSkipped = 0;
      if (pausedRef.current) setHeld((h) => [...h, ...fresh].slice(-KEPT));
      else setEntries((e) => [...e, ...fresh].slice(-KEPT));
    };
    const stop = streamJournal((batch) => {
      arrived.push(...batch.entries);
      arrivedSkipped += batch.skipped;
      timer ??= setTimeout(draw, DRAW_EVERY_MS);
    }, setStatus);
    return () => {
      stop();
      if (timer) clearTimeout(timer);
    };
  }, []);
  const resume = () => {
    setEntries((e) => [...e, ...held].slice(-KEPT));
    setHeld([]);
    setPaused(false);
  };
  const accounts = useMemo(() => [...new Set(entries.map((e) => e.accountId).filter(Boolean))] as string[], [entries]);
  const operations = useMemo(() => [...new Set(entries.map((e) => e.operationId).filter(Boolean))].sort() as string[], [entries]);
  const needle = text.trim().toLowerCase();
  const shown = entries
    .filter((e) => !statusFilter || (e.status !== undefined && `${Math.floor(e.status / 100)}xx` === statusFilter))
    .filter((e) => !account || e.accountId === account)
    .filter((e) => !operation || e.operationId === operation)
    .filter((e) => !needle || [e.path, e.query, e.operationId, e.problem, e.requestId, e.method, ...(e.scenarios ?? [])].some((v) => v?.toLowerCase().includes(needle)))
    .slice(-DRAWN)
    .reverse();

  return (
    <Section
      title="Traffic"
      actions={
        <>
          <span class={`stream stream-${status}`} role="status">
            {status === 'live' ? (paused ? `paused (${held.length} new)` : 'live') : status}
          </span>
          {paused ? (
            <button type="button" onClick={resume}>
              Resume
            </button>
          ) : (
            <button type="button" onClick={() => setPaused(true)}>
              Pause
            </button>
          )}
          <button type="button" onClick={() => setEntries([])}>
            Clear view
          </button>
          <a class="button" href={`..${harPath({ statusFilter, account, operation })}`} download onClick={downloadWithKey}>
            Download HAR
          </a>
        </>
      }
    >
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={statusFilter} onChange={(e) => setStatusFilter(e.currentTarget.value)}>
            <option value="">all</option>
            {['2xx', '3xx', '4xx', '5xx'].map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Account
          <select value={account} onChange={(e) => setAccount(e.currentTarget.value)}>
            <option value="">all</option>
            {accounts.map((a) => (
              <option key={a} value={a}>
                {a}
              </option>
            ))}
          </select>
        </label>
        <label>
          Operation
          <select value={operation} onChange={(e) => setOperation(e.currentTarget.value)}>
            <option value="">all</option>
            {operations.map((o) => (
              <option key={o} value={o}>
                {o}
              </option>
            ))}
          </select>
        </label>
        <label>
          Text
          <input type="search" value={text} placeholder="path, problem, request id…" onInput={(e) => setText(e.currentTarget.value)} />
        </label>
      </form>
      {skipped > 0 && <p class="muted">{skipped} requests arrived faster than the page shows them and were left out (the journal still has them).</p>}
      {entries.length > DRAWN && <p class="muted">Showing the newest {DRAWN} matching requests of the {entries.length} this page holds; filter to find older ones.</p>}
      {open !== undefined && <Detail seq={open} onClose={() => setOpen(undefined)} />}
      <table class="traffic">
        <caption class="sr-only">Requests, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Method</th>
            <th scope="col">Path</th>
            <th scope="col">Operation</th>
            <th scope="col">Account</th>
            <th scope="col">Status</th>
            <th scope="col">ms</th>
            <th scope="col">Scenario</th>
            <th scope="col">Contract</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((e) => (
            <tr key={e.seq} class={open === e.seq ? 'selected' : undefined}>
              <td>{rowTime(e.at)}</td>
              <td>{e.method}</td>
              <td class="path">
                <button type="button" class="link" onClick={() => setOpen(e.seq)} aria-label={`Open ${e.method} ${e.path}`}>
                  {e.path}
                  {e.query ? `?${e.query}` : ''}
                </button>
              </td>
              <td>{e.operationId ?? ''}</td>
              <td title={e.accountId}>{short(e.accountId)}</td>
              <td>
                <span class={`badge ${statusClass(e.status)}`}>{e.status ?? e.outcome}</span>
              </td>
              <td class="num">{e.latencyMs}</td>
              <td>{e.scenarios?.join(', ') ?? ''}</td>
              <td>
                <span class={`verdict verdict-${e.validation ?? 'not-checked'}`}>{VERDICT_TEXT[e.validation ?? 'not-checked']}</span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {shown.length === 0 && <p class="muted">No requests yet. Send one to the API and it appears here.</p>}
    </Section>
  );
}

/**
 * GET /__admin/journal.har with the page's filters (status class, account, operation): the
 * journal's requests as a HAR file, secrets shortened as on this page; relative to /__admin.
 */
function harPath(filters: { statusFilter: string; account: string; operation: string }): string {
  const query = new URLSearchParams();
  if (filters.statusFilter) query.set('status', filters.statusFilter);
  if (filters.account) query.set('account_id', filters.account);
  if (filters.operation) query.set('operation_id', filters.operation);
  const text = query.toString();
  return `/journal.har${text ? `?${text}` : ''}`;
}

/**
 * A link downloads the file as the mock streams it; with an admin key the request must carry
 * the key (a link cannot send headers), so the file is fetched and handed over from memory.
 */
function downloadWithKey(event: MouseEvent): void {
  if (!adminKey()) return;
  event.preventDefault();
  const link = event.currentTarget as HTMLAnchorElement;
  void adminBlob(new URL(link.href).pathname.replace(/^.*\/__admin\//, '') + new URL(link.href).search).then((blob) => {
    const url = URL.createObjectURL(blob);
    const save = document.createElement('a');
    save.href = url;
    save.download = 'shipmock-journal.har';
    save.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  }, () => undefined);
}
