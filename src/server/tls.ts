import { readFileSync } from 'node:fs';

/** PEM certificate and key an HTTPS server is started with. */
export interface TlsMaterial {
  cert: string;
  key: string;
}

export interface TlsOptions {
  /** Serve HTTPS; without cert/key files a self-signed certificate is generated at start. */
  tls?: boolean;
  /** PEM certificate file (implies tls; needs `key`). */
  cert?: string;
  /** PEM private key file (implies tls; needs `cert`). */
  key?: string;
}

/**
 * The certificate to serve, or undefined for plain HTTP (the default on loopback).
 * The spec requires HTTPS; a generated certificate names localhost, 127.0.0.1 and ::1 so
 * clients that pin the host name still work once they trust it.
 *
 * @example
 * const material = await resolveTls({ tls: true }); // { cert: '-----BEGIN CERTIFICATE…', key }
 */
export async function resolveTls(options: TlsOptions, host = '127.0.0.1'): Promise<TlsMaterial | undefined> {
  if (options.cert || options.key) {
    if (!options.cert || !options.key) throw new Error('--cert and --key go together: give both PEM files');
    return { cert: readFileSync(options.cert, 'utf8'), key: readFileSync(options.key, 'utf8') };
  }
  if (!options.tls) return undefined;
  return generateSelfSigned(host);
}

async function generateSelfSigned(host: string): Promise<TlsMaterial> {
  // Loaded only when --tls is asked for: most runs serve plain HTTP and never pay its import.
  const { generate } = await import('selfsigned');
  // Certificate validity is checked by TLS clients against the wall clock, not the virtual one.
  const now = Date.now();
  const altNames: { type: 2 | 7; value?: string; ip?: string }[] = [
    { type: 2, value: 'localhost' },
    { type: 7, ip: '127.0.0.1' },
    { type: 7, ip: '::1' },
  ];
  if (!['localhost', '127.0.0.1', '::1', '0.0.0.0', '::'].includes(host)) {
    altNames.push(/^[\d.]+$|:/.test(host) ? { type: 7, ip: host } : { type: 2, value: host });
  }
  const generated = await generate([{ name: 'commonName', value: 'shipmock' }], {
    keyType: 'ec',
    curve: 'P-256',
    notBeforeDate: new Date(now - 60_000),
    notAfterDate: new Date(now + 365 * 24 * 3_600_000),
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  return { cert: generated.cert, key: generated.private };
}
