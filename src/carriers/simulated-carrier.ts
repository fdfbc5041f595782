import type { Clock } from '../clock/clock.js';
import type { Carrier, CarrierEntry, Catalogue, ServiceEntry } from '../carrier-catalogue/model.js';
import { hashString, type Random } from '../random/random.js';
import { CarrierError } from './carrier-error.js';
import { generateSerial } from '../carrier-catalogue/serial-numbers.js';

/**
 * One simulated carrier, built from its catalogue entry (one generic adapter parameterised by
 * the fixture: services, routes, serial formats). It answers bookings and tracking the way the
 * carrier would; whether that answer went over the (simulated) network is decided by the
 * STAGING / PRODUCTION connection in front of it (staging.ts, production.ts).
 */
export type CarrierSide = 'STAGING' | 'PRODUCTION';

export interface CarrierLocation {
  countryCode: string;
  postalCode?: string;
  city?: string;
}

/** What a booking sends to the carrier. */
export interface CarrierBookingRequest {
  accountId: string;
  /** A catalogue Service of this carrier. */
  serviceId: string;
  /** One tracking number is issued per parcel, in this order. */
  parcels: { parcelId: string; weightKg: number }[];
  sender: CarrierLocation;
  receiver: CarrierLocation;
  reference?: string;
  /** For correlation in the network's call log. */
  shipmentBookingId?: string;
}

export interface CarrierBookingResult {
  mode: CarrierSide;
  /** STAGING: test numbers and specimen documents that no carrier knows. */
  specimen: boolean;
  carrierId: string;
  carrierCode: string;
  serviceId: string;
  serialTypeId: string;
  /** The carrier's own shipment reference (STAGING ones start with TEST-). */
  carrierReference: string;
  parcels: { parcelId: string; trackingNumber: string }[];
  trackingNumbers: string[];
  bookedAt: string;
  estimatedDeliveryAt: string;
}

export type CarrierTrackingStatus = 'CREATED' | 'PICKED_UP' | 'IN_TRANSIT' | 'OUT_FOR_DELIVERY' | 'DELIVERED';

export interface CarrierTrackingEvent {
  status: CarrierTrackingStatus;
  occurredAt: string;
  description: string;
  location?: string;
}

export interface CarrierTrackingRequest {
  accountId: string;
  trackingNumber: string;
  serviceId: string;
  /** When the booking was made (CarrierBookingResult.bookedAt). */
  bookedAt: string;
  sender?: CarrierLocation;
  receiver?: CarrierLocation;
}

export interface SimulatedCarrier {
  readonly carrier: Carrier;
  /** Applies the carrier's rules, then issues tracking numbers from the service's serial type. */
  book(request: CarrierBookingRequest, side: CarrierSide): CarrierBookingResult;
  /** The full planned scan history of a parcel (past and future). */
  plan(request: CarrierTrackingRequest): CarrierTrackingEvent[];
  /** The scans that have happened by now on the virtual clock. */
  track(request: CarrierTrackingRequest): CarrierTrackingEvent[];
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MAX_DRAWS = 1000;

/**
 * @example
 * const dpd = createSimulatedCarrier(catalogue.carrierByCode('DPD')!, { catalogue, clock, random });
 * dpd.book({ accountId, serviceId, parcels: [{ parcelId, weightKg: 2 }], sender: { countryCode: 'DE' }, receiver: { countryCode: 'FR' } }, 'STAGING')
 */
/**
 * The numbers a carrier has handed out (tracking numbers, reference serials), kept in the
 * store so that a restarted mock never issues one again. Keys are `<carrier>:<side>:<number>`.
 */
export interface IssuedNumbers {
  has(key: string): boolean;
  add(key: string): void;
}

/** An IssuedNumbers kept in memory only (unit tests, one-off carriers). */
export function memoryIssuedNumbers(): IssuedNumbers {
  const set = new Set<string>();
  return { has: (key) => set.has(key), add: (key) => void set.add(key) };
}

export function createSimulatedCarrier(
  entry: CarrierEntry,
  deps: { catalogue: Catalogue; clock: Clock; random: Random; issued?: IssuedNumbers },
): SimulatedCarrier {
  const carrier = entry.view;
  // Separate streams per side: test bookings never shift the live numbers of a seed. Named
  // streams: their positions are saved with the state, so a restart continues them.
  const streams: Record<CarrierSide, Random> = {
    PRODUCTION: deps.random.stream(`tracking:${carrier.code}`),
    STAGING: deps.random.stream(`tracking:${carrier.code}:staging`),
  };
  const issued = deps.issued ?? memoryIssuedNumbers();

  function reject(message: string): never {
    throw new CarrierError('REJECTED', `${carrier.name}: ${message}`, { carrierCode: carrier.code });
  }

  function serviceOf(serviceId: string): ServiceEntry {
    const service = deps.catalogue.service(serviceId);
    if (!service || service.view.carrierId !== carrier.id) reject(`service ${serviceId} is not a service of ${carrier.code}`);
    return service;
  }

  function drawUnique(side: CarrierSide, draw: (random: Random) => string): string {
    for (let i = 0; i < MAX_DRAWS; i++) {
      const value = draw(streams[side]);
      const key = `${carrier.code}:${side}:${value}`;
      if (!issued.has(key)) {
        issued.add(key);
        return value;
      }
    }
    throw new Error(`${carrier.code}: no unused ${side} number after ${MAX_DRAWS} draws`);
  }

  function transitPlan(service: ServiceEntry, bookedAtMs: number, key: string) {
    const { transitDaysMin, transitDaysMax } = service.view;
    const spread = transitDaysMax - transitDaysMin + 1;
    const hash = hashString(key);
    const days = transitDaysMin + (hash % spread);
    const deliveryDay = Math.floor(bookedAtMs / DAY) * DAY + Math.max(days, 0) * DAY;
    // Delivered between 09:00 and 17:00 UTC, never before it was booked.
    const deliveredAt = Math.max(deliveryDay + (9 + (hash % 9)) * HOUR, bookedAtMs + 2 * HOUR);
    return { deliveredAt };
  }

  const where = (location?: CarrierLocation) =>
    location ? [location.city, location.countryCode].filter(Boolean).join(', ') || undefined : undefined;

  // Built once: every plan of this carrier shares the string instead of keeping its own copy.
  const receivedDescription = `Shipment data received by ${carrier.name}`;

  const self: SimulatedCarrier = {
    carrier,
    book(request, side) {
      const service = serviceOf(request.serviceId);
      if (!request.parcels.length) reject('a booking needs at least one parcel');
      const route = service.routesByPair.get(`${request.sender.countryCode}>${request.receiver.countryCode}`);
      if (!route) reject(`${service.view.code} does not serve ${request.sender.countryCode} → ${request.receiver.countryCode}`);
      request.parcels.forEach((parcel, index) => {
        if (parcel.weightKg > service.view.maxWeightKg) {
          reject(`parcel ${index + 1} weighs ${parcel.weightKg} kg, over the ${service.view.maxWeightKg} kg limit of ${service.view.code}`);
        }
      });
      const serial = deps.catalogue.serialType(service.serialTypeId)!;
      const parcels = request.parcels.map((parcel) => ({
        parcelId: parcel.parcelId,
        trackingNumber: drawUnique(side, (random) => generateSerial(serial.format, random, side)),
      }));
      const now = deps.clock.now();
      const day = new Date(now).toISOString().slice(0, 10).replaceAll('-', '');
      const serialPart = drawUnique(side, (random) => String(random.int(0, 999_999)).padStart(6, '0'));
      const carrierReference = `${side === 'STAGING' ? 'TEST-' : ''}${carrier.code}-${day}-${serialPart}`;
      const { deliveredAt } = transitPlan(service, now, parcels[0].trackingNumber);
      return {
        mode: side,
        specimen: side === 'STAGING',
        carrierId: carrier.id,
        carrierCode: carrier.code,
        serviceId: service.view.id,
        serialTypeId: serial.view.id,
        carrierReference,
        parcels,
        trackingNumbers: parcels.map((p) => p.trackingNumber),
        bookedAt: new Date(now).toISOString(),
        estimatedDeliveryAt: new Date(deliveredAt).toISOString(),
      };
    },
    plan(request) {
      const service = serviceOf(request.serviceId);
      const bookedAt = Date.parse(request.bookedAt);
      const { deliveredAt } = transitPlan(service, bookedAt, request.trackingNumber);
      // One string per place, shared by its scans (a stored tracker keeps them all).
      const origin = where(request.sender);
      const destination = where(request.receiver);
      const steps: [CarrierTrackingStatus, number, string, string | undefined][] = [
        ['CREATED', bookedAt, receivedDescription, origin],
        ['PICKED_UP', bookedAt + 4 * HOUR, 'Parcel picked up from the sender', origin],
        ['IN_TRANSIT', bookedAt + 10 * HOUR, 'Parcel processed at the origin hub', origin],
        ['OUT_FOR_DELIVERY', deliveredAt - 3 * HOUR, 'Parcel out for delivery', destination],
        ['DELIVERED', deliveredAt, 'Parcel delivered', destination],
      ];
      // Short transits squeeze the plan: keep every scan at least 30 minutes after the previous one.
      let previous = -Infinity;
      return steps.map(([status, at, description, location]) => {
        const occurred = Math.max(at, previous + HOUR / 2);
        previous = occurred;
        return { status, occurredAt: new Date(occurred).toISOString(), description, ...(location ? { location } : {}) };
      });
    },
    track(request) {
      const now = deps.clock.now();
      return self.plan(request).filter((event) => Date.parse(event.occurredAt) <= now);
    },
  };
  return self;
}
