import { useState } from 'preact/hooks';
import { admin, adminHeaders, adminUrl, describeError } from './api';
import { ErrorText, JsonView, Notice, Section, short, time, useAction, useLoad } from './common';
import { DocumentPreview, type StoredDocument } from './documents';
import type { EventEnvelope, StateOverview as Overview, StoredObjectPage as Page } from './types';


interface Booking {
  id: string;
  status: string;
  createdAt: string;
  parcels?: { parcelId: string; trackingNumber?: string; labelDocumentId?: string }[];
  trackingNumbers?: string[];
}

interface Tracker {
  id: string;
  trackingNumber: string;
  status?: string;
  events: { status: string; occurredAt: string; description?: string; location?: unknown }[];
}

const PAGE = 20;

/** A booking with what belongs to it: parcels, documents (previewed), trackers and events. */
function BookingView({ accountId, booking }: { accountId: string; booking: Booking }) {
  const related = useLoad(async () => {
    const [documents, trackers, events] = await Promise.all([
      admin<Page>(`state/accounts/${accountId}/collections/documents?limit=200`),
      admin<Page>(`state/accounts/${accountId}/collections/trackers?limit=200`),
      admin<{ items: EventEnvelope[] }>(`events?account_id=${accountId}&mentions=${encodeURIComponent(booking.id)}`),
    ]);
    const numbers = new Set((booking.parcels ?? []).map((p) => p.trackingNumber).filter(Boolean));
    return {
      documents: (documents.items as unknown as StoredDocument[]).filter((d) => d.groupId === booking.id),
      trackers: (trackers.items as unknown as Tracker[]).filter((t) => numbers.has(t.trackingNumber)),
      events: events.items,
    };
  }, [accountId, booking.id]);
  return (
    <div class="booking" aria-label={`Booking ${booking.id}`}>
      <h4>Parcels</h4>
      <table>
        <thead>
          <tr>
            <th scope="col">Parcel</th>
            <th scope="col">Tracking number</th>
            <th scope="col">Label document</th>
          </tr>
        </thead>
        <tbody>
          {(booking.parcels ?? []).map((p) => (
            <tr key={p.parcelId}>
              <td>{p.parcelId}</td>
              <td>{p.trackingNumber ?? '—'}</td>
              <td>{p.labelDocumentId ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <ErrorText error={related.error} />
      {related.data && (
        <>
          <h4>Documents</h4>
          {related.data.documents.length === 0 && <p class="muted">No documents.</p>}
          <div class="documents">
            {related.data.documents.map((d) => (
              <DocumentPreview key={d.id} accountId={accountId} document={d} />
            ))}
          </div>
          <h4>Tracker timeline</h4>
          {related.data.trackers.length === 0 && <p class="muted">No trackers.</p>}
          {related.data.trackers.map((t) => (
            <div key={t.id} class="tracker">
              <p>
                <strong>{t.trackingNumber}</strong> {t.status ?? ''}
              </p>
              <ol class="timeline" aria-label={`Timeline of ${t.trackingNumber}`}>
                {t.events.map((e, i) => (
                  <li key={i}>
                    <time>{time(e.occurredAt)}</time> <strong>{e.status}</strong> {e.description ?? ''}
                  </li>
                ))}
              </ol>
            </div>
          ))}
          <h4>Events</h4>
          {related.data.events.length === 0 && <p class="muted">No events remembered (the inspector keeps the last 500).</p>}
          <ul class="events">
            {related.data.events.map((e) => (
              <li key={e.id}>
                <time>{time(e.createdAt)}</time> {e.topic} {e.type}
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

function Collection({ accountId, name }: { accountId: string; name: string }) {
  const [offset, setOffset] = useState(0);
  const [open, setOpen] = useState<string | undefined>(undefined);
  const page = useLoad(() => admin<Page>(`state/accounts/${accountId}/collections/${name}?offset=${offset}&limit=${PAGE}`), [accountId, name, offset]);
  if (page.error) return <ErrorText error={page.error} />;
  if (!page.data) return <p class="muted">Loading…</p>;
  const { items, total } = page.data;
  return (
    <div class="collection">
      <h3>
        {name} <span class="muted">({total})</span>
      </h3>
      <ul class="items">
        {items.map((item) => {
          const id = String(item.id ?? '');
          const summary = [item.status, item.name, item.trackingNumber, item.type, item.createdAt].filter((v) => typeof v === 'string').join(' · ');
          return (
            <li key={id}>
              <button type="button" class="link" aria-expanded={open === id} onClick={() => setOpen(open === id ? undefined : id)}>
                {id} {summary && <span class="muted">{summary}</span>}
              </button>
              {open === id && (
                <>
                  {name === 'shipment-bookings' && <BookingView accountId={accountId} booking={item as unknown as Booking} />}
                  {name === 'documents' && <DocumentPreview accountId={accountId} document={item as unknown as StoredDocument} />}
                  <details open={name !== 'shipment-bookings'}>
                    <summary>Stored object</summary>
                    <JsonView value={item} label={`Stored ${name} ${id}`} />
                  </details>
                </>
              )}
            </li>
          );
        })}
      </ul>
      <div class="pager">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous
        </button>
        <span>
          {total === 0 ? 0 : offset + 1}–{Math.min(total, offset + PAGE)} of {total}
        </span>
        <button type="button" disabled={offset + PAGE >= total} onClick={() => setOffset(offset + PAGE)}>
          Next
        </button>
      </div>
    </div>
  );
}

async function exportState(): Promise<void> {
  const response = await fetch(adminUrl('state'), { headers: adminHeaders() });
  if (!response.ok) throw new Error(`export failed: HTTP ${response.status}`);
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = 'shipmock-state.json';
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function StateTab() {
  const overview = useLoad(() => admin<Overview>('state/overview'), []);
  const [selected, setSelected] = useState<{ accountId: string; collection?: string } | undefined>(undefined);
  const action = useAction();
  const reset = (accountId?: string) => {
    if (!confirm(accountId ? `Reset account ${accountId}? Its resources, journal entries and deliveries go; the account stays.` : 'Reset everything? Every account and resource goes.')) return;
    void action.run(() => admin('reset', { method: 'POST', body: accountId ? { accountId } : {} }), accountId ? `Account ${accountId} reset.` : 'Everything reset.').then(() => {
      overview.refresh();
      setSelected(undefined);
    });
  };
  const importFile = async (file: File) => {
    let state: unknown;
    try {
      state = JSON.parse(await file.text());
    } catch (e) {
      return action.run(() => Promise.reject(new Error(`${file.name} is not JSON: ${describeError(e)}`)), '');
    }
    await action.run(() => admin('state', { method: 'PUT', body: state }), `Imported ${file.name}.`);
    overview.refresh();
  };
  return (
    <Section
      title="State"
      actions={
        <>
          <button type="button" onClick={() => overview.refresh()}>
            Refresh
          </button>
          <button type="button" onClick={() => action.run(exportState, 'Exported shipmock-state.json.')}>
            Export state
          </button>
          <label class="file-button">
            Import state
            <input type="file" accept="application/json,.json" onChange={(e) => e.currentTarget.files?.[0] && importFile(e.currentTarget.files[0])} />
          </label>
          <button type="button" class="danger" onClick={() => reset()}>
            Reset all
          </button>
        </>
      }
    >
      <Notice message={action.message} />
      <ErrorText error={overview.error} />
      <div class="state-layout">
        <div class="tree" aria-label="Companies and accounts">
          {overview.data?.companies.map((company) => (
            <div key={company.companyId} class="company">
              <h3>
                {company.name} <span class="muted">{short(company.companyId)}</span>
              </h3>
              {company.accounts.length === 0 && <p class="muted">No accounts yet.</p>}
              <ul>
                {company.accounts.map((account) => (
                  <li key={account.accountId}>
                    <button type="button" class="link" aria-current={selected?.accountId === account.accountId} onClick={() => setSelected({ accountId: account.accountId })}>
                      {account.name} <span class="muted">{short(account.accountId)}</span>
                    </button>
                    {!account.enabled && <span class="badge status-4xx">disabled</span>}
                    <button type="button" class="small danger" onClick={() => reset(account.accountId)} aria-label={`Reset account ${account.name}`}>
                      Reset
                    </button>
                    {selected?.accountId === account.accountId && (
                      <ul class="collections">
                        {Object.entries(account.collections).map(([name, count]) => (
                          <li key={name}>
                            <button type="button" class="link" aria-current={selected.collection === name} onClick={() => setSelected({ accountId: account.accountId, collection: name })}>
                              {name} ({count})
                            </button>
                          </li>
                        ))}
                        {Object.keys(account.collections).length === 0 && <li class="muted">empty</li>}
                      </ul>
                    )}
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </div>
        <div class="objects">
          {selected?.collection ? <Collection key={`${selected.accountId}/${selected.collection}`} accountId={selected.accountId} name={selected.collection} /> : <p class="muted">Pick an account, then a collection.</p>}
        </div>
      </div>
    </Section>
  );
}
