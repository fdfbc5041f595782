import { useState } from 'preact/hooks';
import { AdminError, admin, adminText, describeError } from './api';
import { AccountSelect, ErrorText, Notice, Section, time, useAction, useLoad } from './common';
import type { AccountSummary, ScenarioActivation, ScenarioList, StateOverview as Overview } from './types';

const EXAMPLE = `name: slow-bookings
description: Bookings answer 503 once, then pass.
rules:
  - name: one-outage
    match:
      path: /v1/shipment-bookings
      method: POST
    sequence:
      - respond:
          status: 503
          retryAfter: 1
      - pass
`;

/** Violations name their YAML line as "(line N)": the editor marks those lines. */
function linesOf(problems: string[]): Set<number> {
  const lines = new Set<number>();
  for (const text of problems) for (const match of text.matchAll(/\(line (\d+)\)/g)) lines.add(Number(match[1]));
  return lines;
}

function Editor({ onActivated, accounts }: { onActivated: () => void; accounts: AccountSummary[] }) {
  const [text, setText] = useState(EXAMPLE);
  const [problems, setProblems] = useState<string[]>([]);
  const [done, setDone] = useState<string | undefined>(undefined);
  const [account, setAccount] = useState('');
  const bad = linesOf(problems);
  const lineCount = text.split('\n').length;
  const activate = async () => {
    setDone(undefined);
    try {
      const activation = await adminText<ScenarioActivation>(account ? `scenarios?account_id=${encodeURIComponent(account)}` : 'scenarios', 'application/yaml', text);
      setProblems([]);
      setDone(`Activated ${activation.name}${activation.accountId ? ` for account ${activation.accountId}` : ''}.`);
      onActivated();
    } catch (e) {
      const violations = e instanceof AdminError ? (e.problem?.properties?.violations ?? []) : [];
      setProblems(violations.length ? violations.map((v) => `${v.field}: ${v.message}`) : [describeError(e)]);
    }
  };
  return (
    <div class="editor">
      <h3>Write or upload a scenario</h3>
      <div class="editor-row">
        <label class="file-button">
          Upload YAML
          <input type="file" accept=".yaml,.yml,application/yaml,text/yaml" onChange={async (e) => e.currentTarget.files?.[0] && setText(await e.currentTarget.files[0].text())} />
        </label>
        <AccountSelect label="For" value={account} accounts={accounts} onChange={setAccount} />
        <button type="button" onClick={activate}>
          Validate and activate
        </button>
      </div>
      <div class="code-editor">
        <ol class="gutter" aria-hidden="true">
          {Array.from({ length: lineCount }, (_, i) => (
            <li key={i} class={bad.has(i + 1) ? 'bad-line' : undefined}>
              {i + 1}
            </li>
          ))}
        </ol>
        <textarea aria-label="Scenario YAML" spellcheck={false} value={text} rows={Math.max(10, lineCount + 1)} onInput={(e) => setText(e.currentTarget.value)} />
      </div>
      {problems.length > 0 && (
        <div class="notice error" role="alert">
          <p>The scenario was not activated:</p>
          <ul>
            {problems.map((p, i) => (
              <li key={i}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      {done && <p class="notice ok" role="status">{done}</p>}
    </div>
  );
}

export function ScenariosTab() {
  const list = useLoad(() => admin<ScenarioList>('scenarios'), [], 3000);
  const overview = useLoad(() => admin<Overview>('state/overview'), []);
  const accounts = overview.data?.companies.flatMap((c) => c.accounts) ?? [];
  const [account, setAccount] = useState('');
  const action = useAction();
  const activate = (name: string) =>
    action.run(() => admin('scenarios', { method: 'POST', body: account ? { name, accountId: account } : { name } }), `Activated ${name}${account ? ` for account ${account}` : ''}.`).then(list.refresh);
  const deactivate = (a: ScenarioActivation) =>
    action.run(() => admin(`scenarios/${encodeURIComponent(a.name)}${a.accountId ? `?account_id=${a.accountId}` : ''}`, { method: 'DELETE' }), `Deactivated ${a.name}.`).then(list.refresh);
  return (
    <Section title="Scenarios">
      <Notice message={action.message} />
      <ErrorText error={list.error} />
      <h3>Active</h3>
      {list.data?.active.length === 0 && <p class="muted">No scenario is active.</p>}
      <ul class="active-scenarios">
        {list.data?.active.map((a) => (
          <li key={`${a.name}-${a.accountId ?? ''}`}>
            <strong>{a.name}</strong> {a.accountId ? `for account ${a.accountId}` : 'for every account'} · since {time(a.activatedAt)} · fired {a.hits} times{' '}
            <button type="button" class="small" onClick={() => deactivate(a)} aria-label={`Deactivate ${a.name}`}>
              Deactivate
            </button>
            <table class="rules">
              <caption class="sr-only">Rules of {a.name}</caption>
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Matched</th>
                  <th scope="col">Fired</th>
                </tr>
              </thead>
              <tbody>
                {a.rules.map((r) => (
                  <tr key={r.index}>
                    <td>{r.name ?? `#${r.index}`}</td>
                    <td>{r.kind}</td>
                    <td class="num">{r.matched}</td>
                    <td class="num">{r.fired}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </li>
        ))}
      </ul>
      <h3>Ready scenarios</h3>
      <AccountSelect label="Activate for" value={account} accounts={accounts} onChange={setAccount} />
      <table class="ready">
        <thead>
          <tr>
            <th scope="col">Scenario</th>
            <th scope="col">What it does</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {list.data?.available.map((s) => (
            <tr key={s.name}>
              <td>
                <code>{s.name}</code>
              </td>
              <td>{s.description ?? ''}</td>
              <td>
                <button type="button" class="small" onClick={() => activate(s.name)} aria-label={`Activate ${s.name}`}>
                  Activate
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <Editor onActivated={list.refresh} accounts={accounts} />
    </Section>
  );
}
