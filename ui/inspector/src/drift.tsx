import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { admin } from './api';
import { ErrorText, Notice, Section, rowTime, statusClass, useAction, useLoad } from './common';
import type { DriftPage, DriftRecord } from './types';

const ISSUES: Record<string, string> = {
  value: 'differs',
  type: 'other type',
  'missing-in-mock': 'missing in the mock',
  'missing-upstream': 'only in the mock',
};

function Differences({ record }: { record: DriftRecord }) {
  return (
    <div class="drift-detail">
      <table>
        <caption>
          Differences of {record.method} {record.path}
        </caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Field</th>
            <th scope="col">Issue</th>
            <th scope="col">Real service</th>
            <th scope="col">Mock</th>
          </tr>
        </thead>
        <tbody>
          {record.differences.map((d, i) => (
            <tr key={i}>
              <td>{d.kind}</td>
              <td>
                <code>{d.field}</code>
              </td>
              <td>{ISSUES[d.issue] ?? d.issue}</td>
              <td>
                <code>{d.upstream ?? '—'}</code>
              </td>
              <td>
                <code>{d.mock ?? '—'}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {record.notes?.map((note) => (
        <p key={note} class="muted">
          {note}
        </p>
      ))}
    </div>
  );
}

/** What `shipmock compare` recorded: the summary by operation and field, and each request that drifted. */
export function DriftTab() {
  const [onlyDrifted, setOnlyDrifted] = useState(true);
  const [field, setField] = useState('');
  const [open, setOpen] = useState<string | undefined>(undefined);
  const query = `drift?limit=200${onlyDrifted ? '&drifted=true' : ''}${field ? `&field=${encodeURIComponent(field)}` : ''}`;
  const page = useLoad(() => admin<DriftPage>(query), [query], 3000);
  const everything = useLoad(() => admin<DriftPage>('drift?limit=1'), [], 3000);
  const summary = everything.data?.summary;
  const action = useAction();
  const refresh = () => (page.refresh(), everything.refresh());
  const clear = () => action.run(() => admin('drift', { method: 'DELETE' }), 'Drift records cleared.').then(refresh);
  return (
    <Section
      title="Drift"
      actions={
        <>
          <button type="button" onClick={refresh}>
            Refresh
          </button>
          <button type="button" onClick={clear}>
            Clear drift records
          </button>
        </>
      }
    >
      <Notice message={action.message} />
      <ErrorText error={page.error ?? everything.error} />
      <p class="muted">
        Where this mock answered differently from the real service, as <code>shipmock compare --upstream URL</code> found it. Ids, timestamps, tokens and ignored paths differ only by presence or type.
      </p>
      {summary && (
        <p class="counts" role="status">
          {summary.compared} request(s) compared, {summary.drifted} drifted
          {everything.data && ` (the newest ${everything.data.size} of at most ${everything.data.capacity} kept)`}
        </p>
      )}
      {summary && summary.compared === 0 && <p class="muted">Nothing compared yet: start shipmock compare with this mock and send requests through it.</p>}
      {summary && Object.keys(summary.byOperation).length > 0 && (
        <table class="drift-summary">
          <caption>By operation</caption>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Requests</th>
              <th scope="col">Drifted</th>
              <th scope="col">Fields</th>
            </tr>
          </thead>
          <tbody>
            {Object.entries(summary.byOperation)
              .sort(([a], [b]) => a.localeCompare(b))
              .map(([operation, entry]) => (
                <tr key={operation} class={entry.drifted ? 'drifted' : undefined}>
                  <th scope="row">{operation}</th>
                  <td class="num">{entry.requests}</td>
                  <td class="num">{entry.drifted}</td>
                  <td>
                    {Object.entries(entry.fields).map(([f, n]) => (
                      <Fragment key={f}>
                        <button type="button" class="link" onClick={() => (setField(f), setOnlyDrifted(true))} aria-label={`Show requests where ${f} differed`}>
                          <code>{f}</code>
                        </button>{' '}
                        ×{n}{' '}
                      </Fragment>
                    ))}
                  </td>
                </tr>
              ))}
          </tbody>
        </table>
      )}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          <input type="checkbox" checked={onlyDrifted} onChange={(e) => setOnlyDrifted(e.currentTarget.checked)} /> Drifted requests only
        </label>
        <label>
          Field
          <select value={field} onChange={(e) => setField(e.currentTarget.value)}>
            <option value="">any</option>
            {summary?.byField.map((f) => (
              <option key={`${f.kind} ${f.field}`} value={f.field}>
                {f.field} ({f.count})
              </option>
            ))}
          </select>
        </label>
      </form>
      <table class="drift">
        <thead>
          <tr>
            <th scope="col">At</th>
            <th scope="col">Request</th>
            <th scope="col">Operation</th>
            <th scope="col">Real service</th>
            <th scope="col">Mock</th>
            <th scope="col">Differences</th>
          </tr>
        </thead>
        <tbody>
          {page.data?.items.map((r) => (
            <Fragment key={r.id}>
              <tr class={r.differences.length ? 'drifted' : undefined}>
                <td>{rowTime(r.at)}</td>
                <td>
                  <button type="button" class="link" aria-expanded={open === r.id} onClick={() => setOpen(open === r.id ? undefined : r.id)} aria-label={`Open ${r.method} ${r.path.split('?')[0]}`}>
                    {r.method} {r.path}
                  </button>
                </td>
                <td>{r.operationId ?? '—'}</td>
                <td>
                  <span class={`badge ${statusClass(r.upstreamStatus)}`}>{r.upstreamStatus}</span>
                </td>
                <td>
                  <span class={`badge ${statusClass(r.mockStatus)}`}>{r.mockStatus}</span>
                </td>
                <td class="num">{r.differences.length}</td>
              </tr>
              {open === r.id && (
                <tr>
                  <td colSpan={6}>
                    <Differences record={r} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {page.data?.items.length === 0 && <p class="muted">No {onlyDrifted ? 'drifted ' : ''}requests{field ? ` with ${field}` : ''}.</p>}
    </Section>
  );
}
