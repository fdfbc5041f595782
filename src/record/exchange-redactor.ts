import { headerOf, type Exchange } from '../recording/index.js';
import { redactBody, redactHeader, redactUrl } from '../util/redact.js';

/** Request header values remembered per name, at most (then forgotten all at once and learnt again). */
const MAX_REMEMBERED = 2048;

/**
 * redactExchange (src/recording/exchange.ts) for a recorder, which sees the same request headers
 * again and again: a client's token, its content type, its host. Each header is shortened by the
 * control plane's one function (redactHeader), and a request header's result is remembered for
 * the next request that sends the same value, so a long token is not taken apart per exchange.
 * URLs and bodies are redacted each time. The result is redactExchange's, member for member.
 *
 * @example
 * const redact = createExchangeRedactor();
 * redact(exchange).request.headers.Authorization // 'Bearer eyJhbG…'
 */
export function createExchangeRedactor(): (exchange: Exchange) => Exchange {
  const remembered = new Map<string, Map<string, string>>();
  let count = 0;
  const requestHeader = (name: string, value: string): string => {
    let values = remembered.get(name);
    let redacted = values?.get(value);
    if (redacted !== undefined) return redacted;
    redacted = redactHeader(name, value);
    if (count >= MAX_REMEMBERED) {
      remembered.clear();
      count = 0;
      values = undefined;
    }
    if (!values) remembered.set(name, (values = new Map()));
    values.set(value, redacted);
    count++;
    return redacted;
  };
  const headers = (all: Record<string, string>, each: (name: string, value: string) => string) => {
    const out: Record<string, string> = {};
    for (const name in all) out[name] = each(name, all[name]);
    return out;
  };
  const body = (text: string | Buffer | undefined, all: Record<string, string>) => (typeof text === 'string' && text.length > 0 ? redactBody(text, headerOf(all, 'content-type')) : text);
  return (exchange) => ({
    ...exchange,
    request: { ...exchange.request, url: redactUrl(exchange.request.url), headers: headers(exchange.request.headers, requestHeader), body: body(exchange.request.body, exchange.request.headers) },
    response: { ...exchange.response, headers: headers(exchange.response.headers, redactHeader), body: body(exchange.response.body, exchange.response.headers) },
  });
}
