import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { admin } from './api';
import type { DeliveryPage, DeliveryStatus, DeliveryWithEvent, StateOverview as Overview } from './types';
import { ErrorText, HeaderTable, JsonView, Notice, Section, short, statusClass, time, useAction, useLoad } from './common';

interface Channel {
  id: string;
  name?: string;
  topics?: string[];
  enabled?: boolean;
  webhook?: { url?: string };
}

const STATUSES: DeliveryStatus[] = ['PENDING', 'IN_FLIGHT', 'RETRYING', 'DELIVERED', 'FAILED', 'CANCELLED'];

function DeliveryDetail({ id }: { id: string }) {
  const one = useLoad(() => admin<DeliveryWithEvent>(`deliveries/${id}`), [id]);
  if (one.error) return <ErrorText error={one.error} />;
  if (!one.data) return <p class="muted">Loading…</p>;
  return (
    <div class="delivery-detail">
      <table>
        <caption>Attempts of {id}</caption>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">At</th>
            <th scope="col">Answer</th>
            <th scope="col">ms</th>
            <th scope="col">Error</th>
            <th scope="col">Headers</th>
          </tr>
        </thead>
        <tbody>
          {one.data.attempts.map((a) => (
            <tr key={a.attempt}>
              <td>{a.attempt}</td>
              <td>{time(a.at)}</td>
              <td>
                <span class={`badge ${statusClass(a.statusCode)}`}>{a.statusCode ?? a.errorCode}</span>
              </td>
              <td class="num">{Math.round(a.latencyMs)}</td>
              <td>{a.error ?? ''}</td>
              <td>
                <details>
                  <summary>headers</summary>
                  <HeaderTable headers={a.requestHeaders} caption="Sent" />
                  <HeaderTable headers={a.responseHeaders} caption="Received" />
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <details>
        <summary>Event</summary>
        <JsonView value={one.data.event} label={`Event of delivery ${id}`} />
      </details>
    </div>
  );
}

export function WebhooksTab() {
  const [status, setStatus] = useState('');
  const [open, setOpen] = useState<string | undefined>(undefined);
  const deliveries = useLoad(() => admin<DeliveryPage>(`deliveries?limit=200${status ? `&status=${status}` : ''}`), [status], 3000);
  const channels = useLoad(async () => {
    const overview = await admin<Overview>('state/overview');
    const accounts = overview.companies.flatMap((c) => c.accounts).filter((a) => a.collections['event-channels']);
    const pages = await Promise.all(accounts.map((a) => admin<{ items: Channel[] }>(`state/accounts/${a.accountId}/collections/event-channels?limit=200`).then((p) => p.items.map((channel) => ({ account: a, channel })))));
    return pages.flat();
  }, []);
  const action = useAction();
  const redeliver = (id: string) =>
    action.run(() => admin(`deliveries/${id}/redeliver`, { method: 'POST' }), `Delivery ${id} sent again.`).then(() => deliveries.refresh());
  return (
    <Section
      title="Webhooks"
      actions={
        <button type="button" onClick={() => (deliveries.refresh(), channels.refresh())}>
          Refresh
        </button>
      }
    >
      <Notice message={action.message} />
      <h3>Event Channels</h3>
      <ErrorText error={channels.error} />
      {channels.data?.length === 0 && <p class="muted">No Event Channels. Create one with POST /v1/event-channels.</p>}
      <ul class="channels">
        {channels.data?.map(({ account, channel }) => (
          <li key={channel.id}>
            <strong>{channel.name ?? channel.id}</strong> <span class="muted">{short(channel.id)}</span> → <code>{channel.webhook?.url}</code> · {channel.topics?.join(', ')} · account {account.name}
            {channel.enabled === false && ' · disabled'}
          </li>
        ))}
      </ul>
      <h3>Deliveries</h3>
      <ErrorText error={deliveries.error} />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
            <option value="">all</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === 'FAILED' ? 'FAILED (dead letters)' : s}
              </option>
            ))}
          </select>
        </label>
        {deliveries.data && (
          <p class="counts">
            {STATUSES.map((s) => `${s} ${deliveries.data!.counts[s]}`).join(' · ')}
          </p>
        )}
      </form>
      <table class="deliveries">
        <thead>
          <tr>
            <th scope="col">Delivery</th>
            <th scope="col">Channel</th>
            <th scope="col">Event</th>
            <th scope="col">Status</th>
            <th scope="col">Attempts</th>
            <th scope="col">Next attempt</th>
            <th scope="col">Updated</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {deliveries.data?.items.map((d) => (
            <Fragment key={d.id}>
              <tr class={d.status === 'FAILED' ? 'dead-letter' : undefined}>
                <td>
                  <button type="button" class="link" aria-expanded={open === d.id} onClick={() => setOpen(open === d.id ? undefined : d.id)}>
                    {short(d.id)}
                  </button>
                </td>
                <td title={d.channelId}>{short(d.channelId)}</td>
                <td>
                  {d.topic} {d.type}
                </td>
                <td>
                  <span class={`badge delivery-${d.status}`}>{d.status === 'FAILED' ? 'FAILED · dead letter' : d.status}</span>
                  {d.reason && <span class="muted"> {d.reason}</span>}
                </td>
                <td class="num">{d.attemptCount}</td>
                <td>{time(d.nextAttemptAt)}</td>
                <td>{time(d.updatedAt)}</td>
                <td>
                  {(d.status === 'FAILED' || d.status === 'DELIVERED' || d.status === 'CANCELLED') && (
                    <button type="button" class="small" onClick={() => redeliver(d.id)} aria-label={`Redeliver ${d.id}`}>
                      Redeliver
                    </button>
                  )}
                </td>
              </tr>
              {open === d.id && (
                <tr>
                  <td colSpan={8}>
                    <DeliveryDetail id={d.id} />
                  </td>
                </tr>
              )}
            </Fragment>
          ))}
        </tbody>
      </table>
      {deliveries.data?.items.length === 0 && <p class="muted">No deliveries{status ? ` with status ${status}` : ''}.</p>}
    </Section>
  );
}
