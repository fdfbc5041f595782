import { describe, expect, it, vi } from 'vitest';
import { catalogueIds, loadCatalogue } from '../carrier-catalogue/load-catalogue.js';
import { createClock } from '../clock/clock.js';
import { createRandom } from '../random/random.js';
import { carrierLatency, carrierOutage, carrierRejection, carrierTimeout } from './faults.js';
import { CarrierError, createCarriers, type CarrierBookingRequest, type CarrierDefinitionRef } from './index.js';
import { createCarrierInterceptors } from './interceptors.js';
import { isStagingSerial, isValidSerial } from '../carrier-catalogue/serial-numbers.js';

const catalogue = loadCatalogue();
const DHL_PARCEL = catalogueIds.carrier('DHL_PARCEL');
const DPD = catalogueIds.carrier('DPD');
const DHL_PAKET = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET');
const DHL_PAKET_INTERNATIONAL = catalogueIds.service('DHL_PARCEL', 'DHL_PAKET_INTERNATIONAL');
const DPD_CLASSIC = catalogueIds.service('DPD', 'DPD_CLASSIC');

function setup(seed = 1) {
  const clock = createClock({ mode: 'manual' });
  const interceptors = createCarrierInterceptors();
  const carriers = createCarriers({ catalogue, clock, random: createRandom(seed), interceptors });
  return { clock, interceptors, carriers };
}

const definition = (mode: 'STAGING' | 'PRODUCTION', carrierId = DHL_PARCEL): CarrierDefinitionRef => ({ id: `cd-${mode}-${carrierId}`, carrierId, mode });

function booking(overrides: Partial<CarrierBookingRequest> = {}): CarrierBookingRequest {
  return {
    accountId: 'account-1',
    serviceId: DHL_PAKET,
    parcels: [
      { parcelId: 'p1', weightKg: 2 },
      { parcelId: 'p2', weightKg: 5 },
    ],
    sender: { countryCode: 'DE', city: 'Berlin' },
    receiver: { countryCode: 'DE', city: 'Hamburg' },
    ...overrides,
  };
}

const formatOf = (serialTypeId: string) => catalogue.serialType(serialTypeId)!.format;

describe('STAGING side', () => {
  it('books without touching the network, even with an outage injected', async () => {
    const { carriers, interceptors } = setup();
    const spy = vi.fn();
    interceptors.add(spy);
    interceptors.add(carrierOutage());
    const result = await carriers.forDefinition(definition('STAGING')).book(booking());
    expect(result).toMatchObject({ mode: 'STAGING', specimen: true, carrierCode: 'DHL_PARCEL', serviceId: DHL_PAKET });
    expect(result.carrierReference).toMatch(/^TEST-DHL_PARCEL-20260101-\d{6}$/);
    expect(spy).not.toHaveBeenCalled();
    expect(carriers.network.history()).toEqual([]);
  });

  it('issues one valid test tracking number per parcel, in parcel order', async () => {
    const { carriers } = setup();
    const result = await carriers.forDefinition(definition('STAGING')).book(booking());
    expect(result.parcels.map((p) => p.parcelId)).toEqual(['p1', 'p2']);
    expect(result.trackingNumbers).toEqual(result.parcels.map((p) => p.trackingNumber));
    for (const number of result.trackingNumbers) {
      expect(isValidSerial(formatOf(result.serialTypeId), number)).toBe(true);
      expect(isStagingSerial(formatOf(result.serialTypeId), number)).toBe(true);
    }
  });
});

describe('PRODUCTION side', () => {
  it('books through the simulated network with live-format numbers', async () => {
    const { carriers, interceptors } = setup();
    const seen = vi.fn();
    interceptors.add(seen);
    const result = await carriers.forDefinition(definition('PRODUCTION')).book(booking({ shipmentBookingId: 'sb-1' }));
    expect(result).toMatchObject({ mode: 'PRODUCTION', specimen: false });
    expect(result.carrierReference).toMatch(/^DHL_PARCEL-20260101-\d{6}$/);
    for (const number of result.trackingNumbers) {
      expect(isValidSerial(formatOf(result.serialTypeId), number)).toBe(true);
      expect(isStagingSerial(formatOf(result.serialTypeId), number)).toBe(false);
    }
    expect(seen).toHaveBeenCalledTimes(1);
    expect(seen.mock.calls[0][0]).toMatchObject({ seq: 1, operation: 'BOOK', carrierId: DHL_PARCEL, carrierCode: 'DHL_PARCEL', carrierDefinitionId: 'cd-PRODUCTION-' + DHL_PARCEL, accountId: 'account-1', at: '2026-01-01T00:00:00.000Z' });
    expect(carriers.network.history()).toEqual([expect.objectContaining({ seq: 1, operation: 'BOOK', outcome: 'OK' })]);
  });

  it.each([
    ['an outage', carrierOutage(), 'OUTAGE', true],
    ['a timeout', carrierTimeout(), 'TIMEOUT', true],
    ['a rejection', carrierRejection('Receiver address unknown'), 'REJECTED', false],
  ] as const)('fails with %s injected, and logs it', async (_name, fault, kind, retryable) => {
    const { carriers, interceptors } = setup();
    interceptors.add(fault);
    const error = await carriers.forDefinition(definition('PRODUCTION')).book(booking()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CarrierError);
    expect(error).toMatchObject({ kind, retryable, carrierCode: 'DHL_PARCEL' });
    expect(carriers.network.history()).toEqual([expect.objectContaining({ outcome: kind, message: (error as Error).message })]);
  });

  it('limits a fault to the carrier it names', async () => {
    const { carriers, interceptors } = setup();
    interceptors.add(carrierOutage({ carrierCode: 'DPD' }));
    await expect(carriers.forDefinition(definition('PRODUCTION')).book(booking())).resolves.toMatchObject({ carrierCode: 'DHL_PARCEL' });
    const dpd = booking({ serviceId: DPD_CLASSIC });
    await expect(carriers.forDefinition(definition('PRODUCTION', DPD)).book(dpd)).rejects.toMatchObject({ kind: 'OUTAGE' });
  });

  it('waits for injected latency, and is healthy again once the fault is removed', async () => {
    const { carriers, interceptors } = setup();
    const sleep = vi.fn(async () => undefined);
    interceptors.add(carrierLatency(1500, {}, sleep));
    const remove = interceptors.add(carrierOutage());
    const connection = carriers.forDefinition(definition('PRODUCTION'));
    await expect(connection.book(booking())).rejects.toBeInstanceOf(CarrierError);
    expect(sleep).toHaveBeenCalledWith(1500);
    remove();
    await expect(connection.book(booking())).resolves.toMatchObject({ mode: 'PRODUCTION' });
    interceptors.clear();
    expect(interceptors.list()).toEqual([]);
  });

  it("waits as the booking's caller says (outside its unit of work), keeps that out of the call log, and passes the wait's failure through as it is", async () => {
    const { carriers, interceptors } = setup();
    interceptors.add(carrierLatency(1500, { carrierCode: 'DHL_PARCEL' }));
    const connection = carriers.forDefinition(definition('PRODUCTION'));
    const waited: number[] = [];
    await expect(connection.book(booking(), async (ms) => void waited.push(ms))).resolves.toMatchObject({ mode: 'PRODUCTION' });
    expect(waited).toEqual([1500]);
    // The log is data: no function in it.
    expect(carriers.network.history().at(-1)).toEqual(expect.not.objectContaining({ wait: expect.anything() }));
    expect(JSON.parse(JSON.stringify(carriers.network.history().at(-1)))).toEqual(carriers.network.history().at(-1));

    // The request could not go on after the wait: its own failure, not the carrier's outage, and nothing logged as the carrier's.
    const calls = carriers.network.history().length;
    const cannotGoOn = new Error('the request could not go on after its delay');
    await expect(connection.book(booking(), () => Promise.reject(cannotGoOn))).rejects.toBe(cannotGoOn);
    expect(carriers.network.history()).toHaveLength(calls);
    // Without a caller's wait, a real timer (replaced here by the interceptor's own sleep).
    const sleep = vi.fn(async () => undefined);
    interceptors.clear();
    interceptors.add(carrierLatency(700, {}, sleep));
    await connection.book(booking(), async () => {
      throw new Error('not asked: the interceptor brought its own sleep');
    });
    expect(sleep).toHaveBeenCalledWith(700);
  });

  it('turns anything else an interceptor throws into a CarrierError', async () => {
    const { carriers, interceptors } = setup();
    interceptors.add(() => {
      throw new Error('socket hang up');
    });
    await expect(carriers.forDefinition(definition('PRODUCTION')).book(booking())).rejects.toMatchObject({ name: 'CarrierError', kind: 'OUTAGE', message: 'DHL_PARCEL: socket hang up' });
  });
});

describe('the carrier’s own rules (both sides)', () => {
  it.each([
    ['a route the service does not serve', booking({ receiver: { countryCode: 'FR' } }), 'does not serve DE → FR'],
    ['a parcel over the weight limit', booking({ parcels: [{ parcelId: 'p', weightKg: 40 }] }), 'over the 31.5 kg limit'],
    ['a service of another carrier', booking({ serviceId: DPD_CLASSIC }), 'is not a service of DHL_PARCEL'],
    ['no parcels', booking({ parcels: [] }), 'at least one parcel'],
  ])('rejects %s', async (_name, request, message) => {
    for (const mode of ['STAGING', 'PRODUCTION'] as const) {
      const { carriers } = setup();
      await expect(carriers.forDefinition(definition(mode)).book(request)).rejects.toMatchObject({ kind: 'REJECTED', message: expect.stringContaining(message) });
    }
  });

  it('books a dutiable international route', async () => {
    const { carriers } = setup();
    const result = await carriers.forDefinition(definition('PRODUCTION')).book(booking({ serviceId: DHL_PAKET_INTERNATIONAL, receiver: { countryCode: 'GB' } }));
    expect(result.trackingNumbers).toHaveLength(2);
  });
});

describe('tracking numbers', () => {
  it('are the same for the same seed and differ for another seed', async () => {
    const run = async (seed: number) => (await setup(seed).carriers.forDefinition(definition('PRODUCTION')).book(booking())).trackingNumbers;
    expect(await run(1)).toEqual(await run(1));
    expect(await run(1)).not.toEqual(await run(2));
  });

  it('do not shift when STAGING bookings happen in between', async () => {
    const plain = setup();
    const mixed = setup();
    const live = (s: ReturnType<typeof setup>) => s.carriers.forDefinition(definition('PRODUCTION')).book(booking());
    await mixed.carriers.forDefinition(definition('STAGING')).book(booking());
    expect((await live(mixed)).trackingNumbers).toEqual((await live(plain)).trackingNumbers);
  });

  it('are never issued twice by one mock instance', async () => {
    const { carriers } = setup();
    const connection = carriers.forDefinition(definition('STAGING', DPD));
    const parcels = Array.from({ length: 50 }, (_, i) => ({ parcelId: `p${i}`, weightKg: 1 }));
    const all = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const result = await connection.book(booking({ serviceId: DPD_CLASSIC, parcels }));
      for (const number of result.trackingNumbers) all.add(number);
    }
    expect(all.size).toBe(2000);
  });
});

describe('tracking', () => {
  it('reports the scans that happened by now on the virtual clock, ending DELIVERED at the estimate', async () => {
    const { carriers, clock } = setup();
    const connection = carriers.forDefinition(definition('PRODUCTION'));
    const booked = await connection.book(booking());
    const request = { accountId: 'account-1', trackingNumber: booked.trackingNumbers[0], serviceId: DHL_PAKET, bookedAt: booked.bookedAt, sender: { countryCode: 'DE', city: 'Berlin' } };
    expect((await connection.track(request)).map((e) => e.status)).toEqual(['CREATED']);
    clock.advance(5 * 3_600_000);
    expect((await connection.track(request)).map((e) => e.status)).toEqual(['CREATED', 'PICKED_UP']);
    clock.advance(10 * 24 * 3_600_000);
    const all = await connection.track(request);
    expect(all.map((e) => e.status)).toEqual(['CREATED', 'PICKED_UP', 'IN_TRANSIT', 'OUT_FOR_DELIVERY', 'DELIVERED']);
    const times = all.map((e) => Date.parse(e.occurredAt));
    expect([...times].sort((x, y) => x - y)).toEqual(times);
    expect(all[0].location).toBe('Berlin, DE');
    const deliveredWithin = (Date.parse(all[4].occurredAt) - Date.parse(booked.bookedAt)) / 86_400_000;
    expect(deliveredWithin).toBeLessThanOrEqual(2 + 1);
    expect(carriers.network.history().map((c) => c.operation)).toEqual(['BOOK', 'TRACK', 'TRACK', 'TRACK']);
  });
});
