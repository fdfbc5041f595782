import { setTimeout as realSleep } from 'node:timers/promises';
import { CarrierError } from '../carriers/carrier-error.js';
import type { CarrierInterceptor } from '../carriers/interceptors.js';
import type { ScenarioEngine } from './engine.js';
import { toMs } from './scenario-file.js';

/**
 * The scenario engine's seat on the simulated carrier network (src/carriers/interceptors.ts):
 * every PRODUCTION booking call asks the active scenarios whether the carrier should fail
 * (OUTAGE), time out, reject the data, or answer slowly. STAGING bookings never reach the
 * network (spec: STAGING "does not communicate live with carriers"), so they are never affected.
 * Tracking calls are left alone: tracker outcomes have their own effect.
 *
 * @example carrierInterceptors.add(scenarioCarrierInterceptor(runtime.scenarios))
 */
export function scenarioCarrierInterceptor(engine: ScenarioEngine, sleep?: (ms: number) => Promise<void>): CarrierInterceptor {
  return async (call) => {
    if (call.operation !== 'BOOK') return;
    const fired = engine.evaluate('carrier', { accountId: call.accountId, carrierId: call.carrierId, carrierCode: call.carrierCode });
    const effect = fired?.effect.carrier;
    if (!fired || !effect) return;
    const origin = `(scenario ${fired.scenario}, ${fired.rule})`;
    // As the call waits (outside the request's unit of work: a shared sandbox goes on meanwhile).
    if (effect.delay !== undefined) await (sleep ?? call.wait ?? realSleep)(toMs(effect.delay));
    switch (effect.outcome) {
      case 'FAIL':
        throw new CarrierError('OUTAGE', effect.reason ?? `${call.carrierCode} is not reachable ${origin}`, { carrierCode: call.carrierCode });
      case 'TIMEOUT':
        throw new CarrierError('TIMEOUT', effect.reason ?? `${call.carrierCode} did not answer in time ${origin}`, { carrierCode: call.carrierCode });
      case 'REJECT':
        throw new CarrierError('REJECTED', effect.reason ?? `${call.carrierCode} refused the booking ${origin}`, { carrierCode: call.carrierCode });
      case 'SLOW':
        return;
    }
  };
}
