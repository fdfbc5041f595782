/**
 * The header every request a shipmock sends carries (webhook deliveries), so the mock can
 * recognise its own traffic when it comes back, directly or through another host (a tunnel, a
 * forwarding receiver): the control plane and the API refuse it with 403 (src/app/steps/
 * refuse-mock-sent.ts). The value says which part of the mock sent it. Channels cannot set it
 * (Shipmock-* is reserved) and a receiver can ignore it. contract/DECISIONS.md, "Shipmock-Sender".
 *
 * @example headers[SENDER_HEADER] = 'webhook'
 */
export const SENDER_HEADER = 'Shipmock-Sender';
