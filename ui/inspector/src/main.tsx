import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { MOCK_BASE, adminKey, setAdminKey, whenKeyNeeded } from './api';
import { ClockTab } from './clock';
import { DriftTab } from './drift';
import { ScenariosTab } from './scenarios';
import { StateTab } from './state';
import { TrafficTab } from './traffic';
import { UsageTab } from './usage';
import { WebhooksTab } from './webhooks';
import './styles.css';

const TABS = [
  { id: 'traffic', label: 'Traffic', view: TrafficTab },
  { id: 'state', label: 'State', view: StateTab },
  { id: 'webhooks', label: 'Webhooks', view: WebhooksTab },
  { id: 'scenarios', label: 'Scenarios', view: ScenariosTab },
  { id: 'clock', label: 'Clock', view: ClockTab },
  { id: 'usage', label: 'Usage', view: UsageTab },
  { id: 'drift', label: 'Drift', view: DriftTab },
] as const;

type TabId = (typeof TABS)[number]['id'];

function tabFromHash(): TabId {
  const id = location.hash.slice(1);
  return (TABS.find((t) => t.id === id)?.id ?? 'traffic') as TabId;
}

/** Asked once when the mock runs with --admin-key; kept for this browser tab only (sessionStorage). */
function KeyForm({ onSaved }: { onSaved: () => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="panel key-form"
      onSubmit={(event) => {
        event.preventDefault();
        setAdminKey(key);
        onSaved();
      }}
    >
      <h2>Admin key</h2>
      <p>This mock was started with <code>--admin-key</code>. Enter the key to use the inspector; it stays in this tab only.</p>
      <label>
        Admin key <input type="password" value={key} autoComplete="off" onInput={(e) => setKey(e.currentTarget.value)} required />
      </label>
      <button type="submit">Use key</button>
    </form>
  );
}

function App() {
  const [tab, setTab] = useState<TabId>(tabFromHash());
  const [needsKey, setNeedsKey] = useState(false);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    whenKeyNeeded(() => setNeedsKey(true));
    const onHash = () => setTab(tabFromHash());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const View = TABS.find((t) => t.id === tab)!.view;
  return (
    <>
      <header class="top">
        <h1>
          shipmock <span>inspector</span>
        </h1>
        <nav aria-label="Sections">
          <ul class="tabs">
            {TABS.map((t) => (
              <li key={t.id}>
                <a href={`#${t.id}`} aria-current={t.id === tab ? 'page' : undefined}>
                  {t.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <a class="docs-link" href={new URL('docs/', MOCK_BASE).toString()}>
          API reference
        </a>
      </header>
      <main>
        {needsKey && (
          <KeyForm
            onSaved={() => {
              setNeedsKey(false);
              setGeneration((g) => g + 1);
            }}
          />
        )}
        {!needsKey && <View key={`${tab}-${generation}-${adminKey() ?? ''}`} />}
      </main>
    </>
  );
}

render(<App />, document.getElementById('app')!);
