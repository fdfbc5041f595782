import type { Ajv2020 } from 'ajv/dist/2020.js';

const PORT = '(?:[1-9]\\d{0,3}|[1-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d{2}|655[0-2]\\d|6553[0-5])';
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const LABEL = '[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?';
/** What follows the host: WHATWG reads a host ending in a number as IPv4, so such a host must be one. */
const HOST_END = '(?=\\.?(?:[:/?#]|$))';
const NOT_A_NUMBER = `(?!(?:\\d+|0x[0-9a-f]*)${HOST_END})`;
const HOST = `(?:${OCTET}(?:\\.${OCTET}){3}${HOST_END}|(?:${LABEL}\\.)*${NOT_A_NUMBER}${LABEL}\\.?|\\[[0-9a-f:.]+\\])`;
const USERINFO = "(?:[a-z0-9._~!$&'()*+,;=:%-]+@)?";

/**
 * An absolute http(s) URL with a host and, when given, a port from 1 to 65535; printable ASCII
 * only (percent-encode the rest, punycode an IDN host). It is a regular expression, not a
 * function, so Ajv's standalone code (the validator cache, compiled-contract.ts) carries it
 * verbatim. The few hosts a pattern cannot judge (an IPv6 literal) are checked again with
 * `new URL()` by the Event Channel service, and delivery never trusts a stored URL anyway.
 *
 * @example WEBHOOK_URL.test('http://127.0.0.1:99999/x') // false
 */
export const WEBHOOK_URL = new RegExp(`^https?://${USERINFO}${HOST}(?::${PORT})?(?:[/?#][!-~]*)?$`, 'i');

const ATEXT = "[a-z0-9!#$%&'*+/=?^_`{|}~-]+";
const SUB_DOMAIN = '[a-z0-9](?:[a-z0-9-]*[a-z0-9])?';

/**
 * An email address as RFC 5321 defines a Mailbox — what JSON Schema's `format: email` says:
 * a dot-string or quoted local part, then a domain of one or more labels (`a@com` is an
 * address) or an address literal (`x@[192.0.2.1]`). ajv-formats' own rule also demands a dot in
 * the domain, so the mock refused addresses the contract allows (contract/DECISIONS.md, "Email").
 *
 * @example EMAIL.test('erika@example.com') && EMAIL.test('a@com') // true
 */
export const EMAIL = new RegExp(
  `^(?:${ATEXT}(?:\\.${ATEXT})*|"(?:[\\x20\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\x20-\\x7e])*")@(?:${SUB_DOMAIN}(?:\\.${SUB_DOMAIN})*|\\[(?:IPv6:[0-9a-f:.]+|(?:\\d{1,3}\\.){3}\\d{1,3})\\])$`,
  'i',
);

/**
 * Formats of the contracts beyond ajv-formats (OpenAPI allows any `format` string), and `email`
 * in place of ajv-formats' stricter one. `http-url` is the same rule for URLs the mock stores but
 * never calls (affiliate checkout redirects): ajv-formats' `uri` would take `javascript:alert(1)`
 * or a port of 99999.
 */
export const CONTRACT_FORMATS: Readonly<Record<string, RegExp>> = { 'webhook-url': WEBHOOK_URL, 'http-url': WEBHOOK_URL, email: EMAIL };

/** What a violation says for each of our formats (the default is "must be a valid <format>"). */
export const FORMAT_MESSAGES: Readonly<Record<string, string>> = {
  'webhook-url': 'must be an absolute http:// or https:// URL with a host and, if any, a port from 1 to 65535',
  'http-url': 'must be an absolute http:// or https:// URL with a host and, if any, a port from 1 to 65535',
};

/** Part of the validator cache key: generated code embeds these expressions. */
export const CONTRACT_FORMATS_FINGERPRINT = Object.entries(CONTRACT_FORMATS)
  .map(([name, rx]) => `${name}=${rx.toString()}`)
  .join('\n');

/** @example addContractFormats(new Ajv2020()); // knows format: webhook-url */
export function addContractFormats(ajv: Ajv2020): Ajv2020 {
  for (const [name, rx] of Object.entries(CONTRACT_FORMATS)) ajv.addFormat(name, rx);
  return ajv;
}
