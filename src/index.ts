/**
 * shipmock's public API. Everything not exported here is internal.
 *
 * @example
 * import { startMock } from 'shipmock';
 * const mock = await startMock({ port: 0, seed: 1 });
 * console.log(mock.url, mock.credentials.clientId);
 * await mock.close();
 */

// Running a mock
export { startMock, type StartOptions, type RunningMock } from './server/start-mock.js';
// Without a socket of its own: the middleware is also a plain (req, res) listener, e.g. http.createServer(shipmockMiddleware()).
export { shipmockMiddleware, type MiddlewareOptions, type ShipmockMiddleware } from './server/express-middleware.js';
export type { MockOptions } from './config/options.js';
export type { LogLevel } from './logging/logger.js';

// Contract access
export { loadContract, type Contract, type ContractOperation } from './contract/load-contract.js';
export { createValidators, type ContractValidators } from './contract/validators.js';

// Errors
export { PROBLEM_TYPES, PROBLEM_BASE_URI, type ProblemSlug } from './errors/problem-types.js';
export type { ProblemBody, Violation } from './errors/problem.js';

// Typed client (types generated from contract/openapi.yaml)
export { createShippingClient, type ShippingClient, type ShippingClientOptions, type ShippingApi } from './client/create-shipping-client.js';
export { ShippingApiError, type Problem } from './client/errors.js';
export type { TokenManager, TokenScope, CachedToken } from './client/token-manager.js';
export { parseShippingEvent, isShipmentBookingEvent, isUsageEvent, type ShippingEvent, type ShipmentBookingEvent, type UsageEvent } from './client/events.js';

// Contract testing: provider verification and the validating proxy
export { verifyProvider, brokerVerifierOptions, type VerifyProviderOptions, type VerificationReport, type InteractionOutcome, type BrokerSettings } from './verify/run-verification.js';
export { shipmockControl, realTargetControl } from './verify/targets.js';
export { formatReport } from './verify/report.js';
export { PROVIDER_STATES, type ProviderStateDefinition, type TargetControl } from './verify/provider-states.js';
export { startValidationProxy, formatProxySummary, type ValidationProxyOptions, type RunningProxy, type ProxySummary, type ProxyViolation } from './proxy/validation-proxy.js';
// Compare: the mock against the real service (shipmock compare)
export { startCompareProxy, formatDriftSummary, DRIFT_COUNT_HEADER, type CompareProxyOptions, type RunningCompare } from './proxy/compare/compare-proxy.js';
export { driftLogOf } from './server/drift-log-of.js';
export { createDriftLog, type DriftLog, type DriftRecord, type DriftDifference, type DriftSummary, type DriftPage } from './journal/drift-log.js';
// can-i-deploy: consumer pacts against a new contract (docs/can-i-deploy.md)
export { checkPactsAgainstContract, type CanIDeployReport, type InteractionResult, type CheckedOperation } from './can-i-deploy/check-pacts.js';
export { impactOfChanges, impactSentence, formatImpact, type ImpactReport, type ChangeImpact } from './can-i-deploy/impact.js';
export type { Finding as CanIDeployFinding } from './can-i-deploy/expectations.js';
export { fetchPactsFromBroker, BrokerError, type BrokerOptions } from './can-i-deploy/broker.js';
export { formatCanIDeploy, type ReportFormat as CanIDeployFormat } from './can-i-deploy/report.js';
export { readPactFiles, type PactFile } from './verify/pact-files.js';
export type { paths as ShippingApiPaths, components as ShippingApiComponents, operations as ShippingApiOperations } from './client/schema.js';

// Webhooks: verify deliveries in your receiver; read the delivery log in-process (mock.webhooks)
export { verifySignature as verifyWebhookSignature, signatureHeader as webhookSignatureHeader } from './events/webhook-signature.js';
export type { WebhookOptions } from './events/webhook-options.js';
export type { Delivery, DeliveryAttempt, DeliveryStatus, DeliveryPage, DeliveryQuery } from './events/delivery-log.js';
export type { EventEnvelope, EventInput, EventTopic } from './events/event-bus.js';

// Simulated carriers: inject faults into PRODUCTION carrier calls (mock.carriers.intercept), read their call log (mock.carriers.calls)
export { carrierLatency, carrierOutage, carrierRejection, carrierTimeout, type CarrierMatch } from './carriers/faults.js';
export { CarrierError, type CarrierErrorKind, type CarrierCall, type CarrierInterceptor, type CarrierInterceptors, type CarrierCallRecord } from './carriers/index.js';
export { isValidSerial, computeCheckDigit, type CheckDigitAlgorithm, type SerialFormat } from './carrier-catalogue/serial-numbers.js';
export type { Catalogue } from './carrier-catalogue/model.js';

// Time
export type { Clock } from './clock/clock.js';
export { parseDuration } from './clock/duration.js';

// QA control plane: the handles startMock() and shipmockMiddleware() return (mock.reset, mock.clock, mock.scenarios, mock.journal,
// mock.state, mock.companies, mock.webhooks, mock.events, mock.carriers, mock.rateLimits, mock.tokens, mock.usage), README section qa
export type { MockHandles, MockTokenClaims, ScenarioActivation } from './server/mock-handles.js';
export type { ClockView, CredentialsView, NewCompany } from './admin/control-plane.js';
export type { RateLimitConfig, RateLimitState } from './rate-limit/rate-limiter.js';
export type { UsageRecord } from './billing/model.js';
export type { MockState } from './admin/state.js';
export type { ScenarioActivationInput } from './config/options.js';
export type { ActivationView, RuleView, ActivationSource } from './scenarios/engine.js';
export type { ScenarioDefinition, Rule as ScenarioRule, Effect as ScenarioEffect, When as ScenarioWhen, RequestMatch as ScenarioMatch } from './scenarios/model.js';
export { ScenarioError, BUILT_IN_SCENARIOS_DIR } from './scenarios/scenario-file.js';
export type { JournalEntry, JournalFilter, JournalOutcome } from './journal/journal.js';
export { checkRetryAfter, assertHonouredRetryAfter, type RetryAfterReport, type RetryAfterViolation } from './journal/retry-after-report.js';

// Contract evolution: what changed between two contract versions and whom it breaks (docs/contract-diff.md)
export { diffContracts, diffInputs, changesForInteraction, type InteractionRef, type ContractChange, type DiffReport, type DiffOptions, type DiffSummary } from './contract-diff/diff.js';
export { RULES as CONTRACT_DIFF_RULES, type ChangeClass, type RuleDefinition } from './contract-diff/rules.js';
export { renderReport as renderContractDiff, type DiffFormat } from './contract-diff/render.js';
export { readRulesFile as readContractDiffRules } from './contract-diff/rules-file.js';
