import { RULES, type ExampleSite } from './rules.js';

const SITE_NAMES: Record<ExampleSite, string> = {
  'request-body': 'request body schema',
  'response-body': 'response schema',
  'webhook-body': 'webhook payload schema',
  parameters: 'parameters',
  'request-body-object': 'requestBody',
  responses: 'responses',
  'webhook-responses': 'webhook responses',
  paths: 'paths',
  webhooks: 'webhooks',
  security: 'security',
  'security-schemes': 'securitySchemes',
};

const code = (value: unknown) => `\`${value === null || value === undefined ? 'absent' : JSON.stringify(value).replace(/\|/g, '\\|')}\``;

/**
 * The Markdown table of docs/contract-diff.md, rendered from RULES (a test keeps the page equal to it).
 * @example renderRulesTable().split('\n')[0] // '| Rule | Class | Detects | Example (old → new) |'
 */
export function renderRulesTable(): string {
  const rows = RULES.map((rule) => `| \`${rule.id}\` | ${rule.class} | ${rule.detects.replace(/\|/g, '\\|')} | ${SITE_NAMES[rule.example.site]}: ${code(rule.example.old)} → ${code(rule.example.new)} |`);
  return ['| Rule | Class | Detects | Example (old → new) |', '|---|---|---|---|', ...rows].join('\n');
}
