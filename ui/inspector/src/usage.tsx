import { useState } from 'preact/hooks';
import { admin } from './api';
import { ErrorText, Section, useLoad } from './common';
import type { UsageLine, UsageOverview } from './types';

const tokensOf = (lines: UsageLine[], operation: string, topic: string) => lines.find((l) => l.operation === operation && l.topic === topic)?.tokens ?? 0;

/** Tokens per day as bars (SVG): the days of the period that had usage, summed over the accounts shown. */
function DailyChart({ daily, label }: { daily: { date: string; tokens: number }[]; label: string }) {
  if (daily.length === 0) return <p class="muted">No usage in this period.</p>;
  const max = Math.max(...daily.map((d) => d.tokens));
  const width = 640;
  const height = 180;
  const bar = Math.min(48, (width - 40) / daily.length - 4);
  return (
    <figure class="chart">
      <svg viewBox={`0 0 ${width} ${height + 40}`} role="img" aria-label={label}>
        <title>{label}</title>
        {daily.map((d, i) => {
          const h = max === 0 ? 0 : Math.round((d.tokens / max) * height);
          const x = 30 + i * (bar + 4);
          return (
            <g key={d.date}>
              <rect x={x} y={height - h + 10} width={bar} height={h} class="bar">
                <title>
                  {d.date}: {d.tokens} tokens
                </title>
              </rect>
              <text x={x + bar / 2} y={height - h + 6} text-anchor="middle" class="bar-value">
                {d.tokens}
              </text>
              <text x={x + bar / 2} y={height + 26} text-anchor="middle" class="bar-label">
                {d.date.slice(5)}
              </text>
            </g>
          );
        })}
      </svg>
      <figcaption>{label}</figcaption>
    </figure>
  );
}

function sumDaily(accounts: UsageOverview['companies'][number]['accounts']) {
  const byDay = new Map<string, number>();
  for (const a of accounts) for (const d of a.daily) byDay.set(d.date, (byDay.get(d.date) ?? 0) + d.tokens);
  return [...byDay].sort(([a], [b]) => a.localeCompare(b)).map(([date, tokens]) => ({ date, tokens }));
}

export function UsageTab() {
  const usage = useLoad(() => admin<UsageOverview>('usage'), [], 5000);
  const [focus, setFocus] = useState<string | undefined>(undefined);
  return (
    <Section title="Usage">
      <ErrorText error={usage.error} />
      {usage.data && (
        <p class="muted">
          Billing tokens from {usage.data.from.slice(0, 10)} to {usage.data.to.slice(0, 10)} (virtual clock): one CONSUME/PARCEL token per booked parcel, one QUERY/PUDO_POINT per PUDO query.
        </p>
      )}
      <table class="usage">
        <thead>
          <tr>
            <th scope="col">Company / account</th>
            <th scope="col">CONSUME · PARCEL</th>
            <th scope="col">QUERY · PUDO_POINT</th>
            <th scope="col">
              <span class="sr-only">Chart</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {usage.data?.companies.flatMap((c) => [
            <tr key={c.companyId} class="company-row">
              <th scope="row">{c.name}</th>
              <td class="num">{tokensOf(c.totals, 'CONSUME', 'PARCEL')}</td>
              <td class="num">{tokensOf(c.totals, 'QUERY', 'PUDO_POINT')}</td>
              <td>
                <button type="button" class="small" onClick={() => setFocus(c.companyId)} aria-label={`Chart of ${c.name}`}>
                  Chart
                </button>
              </td>
            </tr>,
            ...c.accounts.map((a) => (
              <tr key={a.accountId}>
                <th scope="row" class="indent">
                  {a.name} <span class="muted">{a.accountId.slice(0, 8)}</span>
                </th>
                <td class="num">{tokensOf(a.totals, 'CONSUME', 'PARCEL')}</td>
                <td class="num">{tokensOf(a.totals, 'QUERY', 'PUDO_POINT')}</td>
                <td>
                  <button type="button" class="small" onClick={() => setFocus(a.accountId)} aria-label={`Chart of ${a.name}`}>
                    Chart
                  </button>
                </td>
              </tr>
            )),
          ])}
        </tbody>
      </table>
      {usage.data &&
        (() => {
          const company = usage.data.companies.find((c) => c.companyId === focus) ?? (focus ? undefined : usage.data.companies[0]);
          const account = usage.data.companies.flatMap((c) => c.accounts).find((a) => a.accountId === focus);
          if (account) return <DailyChart daily={account.daily} label={`Tokens per day, account ${account.name}`} />;
          if (company) return <DailyChart daily={sumDaily(company.accounts)} label={`Tokens per day, company ${company.name}`} />;
          return null;
        })()}
    </Section>
  );
}
