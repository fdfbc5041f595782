/**
 * The `--webhook-hosts` allowlist (option `webhooks.allowedHosts`): which hosts Event Channel
 * webhooks may point at. Entries, case-insensitive, a trailing dot ignored:
 *
 * - `hooks.example.com`     exactly that host, any port
 * - `*.example.com`         any host below example.com (any depth), not example.com itself
 * - `localhost:9000`        that host on that port only (the URL's port, or 80/443 by scheme)
 * - `*.ngrok.app:443`       a wildcard with a port
 * - `127.0.0.1`, `[::1]`    IP literals, exactly (IPv6 in brackets, as in a URL)
 *
 * Without a list every host is allowed (developers point hooks at tunnels and local receivers).
 *
 * @example
 * const allow = createHostAllowlist(['*.ngrok.app', 'localhost:9000']);
 * allow.check('https://ab12.ngrok.app/hooks') // undefined (allowed)
 * allow.check('http://localhost:3000/x')      // 'host localhost:3000 is not in --webhook-hosts (…)'
 */
export interface HostAllowlist {
  /** The entries as given, normalised; empty when any host is allowed. */
  readonly entries: readonly string[];
  /** Why the URL's host is refused, or undefined when it is allowed (or the list is off). */
  check(url: string | URL): string | undefined;
}

interface Entry {
  wildcard: boolean;
  host: string;
  port?: string;
}

const ENTRY = /^(\*\.)?([a-z0-9_](?:[a-z0-9_.-]*[a-z0-9_])?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** Throws a RangeError naming the entry that is not a host, `*.suffix` or either with `:port`. */
export function parseHostEntry(raw: string): Entry {
  const text = raw.trim().toLowerCase().replace(/\.(?=(?::\d+)?$)/, '');
  const match = ENTRY.exec(text);
  const port = match?.[3];
  if (!match || (port !== undefined && (Number(port) < 1 || Number(port) > 65535))) {
    throw new RangeError(`webhook host "${raw}" must be a host name or IP, optionally *.suffix, optionally :port (1-65535)`);
  }
  return { wildcard: Boolean(match[1]), host: match[2], port };
}

export function createHostAllowlist(patterns: readonly string[] | undefined): HostAllowlist {
  const entries = (patterns ?? []).map(parseHostEntry);
  const shown = entries.map((e) => `${e.wildcard ? '*.' : ''}${e.host}${e.port ? `:${e.port}` : ''}`);
  return {
    entries: shown,
    check(url) {
      if (entries.length === 0) return undefined;
      let parsed: URL;
      try {
        parsed = typeof url === 'string' ? new URL(url) : url;
      } catch {
        return `${JSON.stringify(String(url))} is not a URL`;
      }
      const host = parsed.hostname.toLowerCase().replace(/\.$/, '');
      const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
      const allowed = entries.some(
        (e) => (e.wildcard ? host.endsWith(`.${e.host}`) : host === e.host) && (e.port === undefined || e.port === port),
      );
      return allowed ? undefined : `host ${host}:${port} is not in --webhook-hosts (${shown.join(', ')})`;
    },
  };
}
