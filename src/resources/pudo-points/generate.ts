import { createRandom, hashString, type Random } from '../../random/random.js';
import { cityFor, formatStreet, normalizePostalCode, streetsOf } from './geography.js';
import type { OpeningHours, PudoCarrier, PudoPoint, PudoPointType, PudoService } from './model.js';

/**
 * Deterministic PUDO point generation. Points belong to an *area*: one carrier around one postal
 * code of one country. Each area draws from its own random stream, derived from the mock's seed
 * and the normalised area key, so the same area and seed always yield the same points with the
 * same ids — whatever was queried before (contract/DECISIONS.md "PUDO points are reference data").
 */
export const POINTS_PER_AREA = 50;

/** Maximum distance of a generated point from its area's centre, in metres. */
const AREA_RADIUS_M = 6000;

export interface Area {
  key: string;
  countryCode: string;
  postalCode: string;
  city: string;
  lat: number;
  lon: number;
}

interface Network {
  shop: string;
  locker: string;
  postOffice?: string;
  /** Share of lockers and post offices among the area's points; the rest are parcel shops. */
  lockerShare: number;
  postOfficeShare: number;
}

/** The carriers' own names for their shop and locker networks; generic ones for the rest. */
function networkOf(carrier: PudoCarrier, countryCode: string): Network {
  switch (carrier.code) {
    case 'DHL_PARCEL':
      return {
        shop: 'DHL Paketshop',
        locker: 'DHL Packstation',
        postOffice: countryCode === 'DE' ? 'Deutsche Post Filiale' : 'DHL ServicePoint',
        lockerShare: 0.3,
        postOfficeShare: 0.15,
      };
    case 'DPD':
      return { shop: 'DPD Pickup Paketshop', locker: 'DPD Pickup Station', lockerShare: 0.2, postOfficeShare: 0 };
    case 'GLS':
      return { shop: 'GLS PaketShop', locker: 'GLS ParcelLocker', lockerShare: 0.2, postOfficeShare: 0 };
    case 'POSTNL':
      return { shop: 'PostNL Punt', locker: 'PostNL Pakketautomaat', lockerShare: 0.2, postOfficeShare: 0 };
    case 'UPS':
      return { shop: 'UPS Access Point', locker: 'UPS Access Point Locker', lockerShare: 0.25, postOfficeShare: 0 };
    case 'ROYAL_MAIL':
      return { shop: 'Royal Mail Customer Service Point', locker: 'Royal Mail Parcel Locker', postOffice: 'Post Office', lockerShare: 0.15, postOfficeShare: 0.5 };
    case 'POSTNORD':
      return { shop: 'PostNord Ombud', locker: 'PostNord Paketbox', lockerShare: 0.3, postOfficeShare: 0 };
    case 'INPOST':
      return { shop: 'InPost Pickup Point', locker: countryCode === 'PL' ? 'InPost Paczkomat' : 'InPost Locker', lockerShare: 0.8, postOfficeShare: 0 };
    default:
      return { shop: `${carrier.name} Pickup Point`, locker: `${carrier.name} Locker`, lockerShare: 0.25, postOfficeShare: 0 };
  }
}

/** Whether a carrier runs PUDO points in a country (capability PUDO_DELIVERY and presence). */
export function servesPudo(carrier: PudoCarrier, countryCode: string): boolean {
  return carrier.capabilities.includes('PUDO_DELIVERY') && carrier.countries.includes(countryCode);
}

/**
 * The area around a postal code: its city, centre and key. A known city contributes its
 * coordinates; the postal code moves the centre by up to ~3 km so neighbouring codes differ.
 * Geography does not depend on the seed — only the shops placed in it do. The caller's city
 * (from an Address) names the area only where our city table knows nothing of the country,
 * and is then part of the key, so a key always describes the same place.
 * @example locateArea('DE', '10115').city // 'Berlin'
 */
export function locateArea(countryCode: string, postalCode: string, cityHint?: string): Area {
  const normalized = normalizePostalCode(postalCode);
  const random = createRandom(hashString(`area:${countryCode}:${normalized}`));
  const city = cityFor(countryCode, normalized, (n) => random.int(0, n - 1));
  const hint = city ? undefined : cityHint?.trim();
  const lat = city ? city.lat : -40 + (hashString(`lat:${countryCode}`) % 9000) / 100;
  const lon = city ? city.lon : -120 + (hashString(`lon:${countryCode}`) % 24000) / 100;
  return {
    key: [countryCode, normalized, hint?.toUpperCase()].filter(Boolean).join('|'),
    countryCode,
    // A code of blanks is a valid Address (minLength 1); trimmed to nothing it would not be a valid PUDO address.
    postalCode: postalCode.trim() || postalCode,
    city: city?.name ?? hint ?? random.pick(['Centre', 'Downtown', 'Old Town']),
    lat: round6(lat + (random.next() - 0.5) * 0.05),
    lon: round6(lon + (random.next() - 0.5) * 0.08),
  };
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;
const hhmm = (minutes: number) => `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
const WEEKDAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY'] as const;

function openingHours(type: PudoPointType, random: Random): OpeningHours[] {
  if (type === 'LOCKER') {
    return [...WEEKDAYS, 'SATURDAY' as const, 'SUNDAY' as const].map((dayOfWeek) => ({ dayOfWeek, opensAt: '00:00', closesAt: '23:59' }));
  }
  if (type === 'POST_OFFICE') {
    const opens = random.pick([8 * 60, 8 * 60 + 30, 9 * 60]);
    const closes = random.pick([17 * 60 + 30, 18 * 60, 18 * 60 + 30]);
    return [
      ...WEEKDAYS.map((dayOfWeek) => ({ dayOfWeek, opensAt: hhmm(opens), closesAt: hhmm(closes) })),
      { dayOfWeek: 'SATURDAY', opensAt: '09:00', closesAt: random.pick(['12:00', '12:30', '13:00']) },
    ];
  }
  const opens = random.pick([7 * 60, 8 * 60, 9 * 60, 10 * 60]);
  const closes = random.pick([18 * 60, 19 * 60, 20 * 60, 22 * 60]);
  const hours: OpeningHours[] = WEEKDAYS.map((dayOfWeek) => ({ dayOfWeek, opensAt: hhmm(opens), closesAt: hhmm(closes) }));
  hours.push({ dayOfWeek: 'SATURDAY', opensAt: hhmm(Math.max(opens, 8 * 60)), closesAt: random.pick(['13:00', '14:00', '16:00', '20:00']) });
  if (random.next() < 0.15) hours.push({ dayOfWeek: 'SUNDAY', opensAt: '10:00', closesAt: '14:00' });
  return hours;
}

function servicesOf(type: PudoPointType, random: Random): PudoService[] {
  if (type === 'LOCKER') return ['DROP_OFF', 'PICKUP'];
  if (type === 'POST_OFFICE') return ['DROP_OFF', 'PICKUP', 'RETURNS'];
  return random.next() < 0.7 ? ['DROP_OFF', 'PICKUP', 'RETURNS'] : ['DROP_OFF', 'PICKUP'];
}

/**
 * The points of one carrier in one area, drawn from `random` (a stream derived from the seed
 * and the area key). Points lie within 6 km of the centre, nearer ones more likely.
 */
export function generateAreaPoints(carrier: PudoCarrier, area: Area, random: Random): PudoPoint[] {
  const network = networkOf(carrier, area.countryCode);
  const streets = streetsOf(area.countryCode);
  const points: PudoPoint[] = [];
  for (let i = 0; i < POINTS_PER_AREA; i++) {
    const id = random.uuid();
    const roll = random.next();
    const type: PudoPointType =
      roll < network.lockerShare ? 'LOCKER' : network.postOffice && roll < network.lockerShare + network.postOfficeShare ? 'POST_OFFICE' : 'PARCEL_SHOP';
    const street = random.pick(streets);
    const number = random.int(1, 160);
    // Uniform in the disc: radius ∝ √u.
    const radius = AREA_RADIUS_M * Math.sqrt(random.next());
    const angle = random.next() * 2 * Math.PI;
    const lat = area.lat + (radius * Math.cos(angle)) / 111_320;
    const lon = area.lon + (radius * Math.sin(angle)) / (111_320 * Math.cos((area.lat * Math.PI) / 180));
    const name =
      type === 'LOCKER'
        ? `${network.locker} ${random.int(100, 999)}`
        : type === 'POST_OFFICE'
          ? `${network.postOffice} ${area.city} ${street}`
          : `${network.shop} ${street}`;
    points.push({
      id,
      carrierId: carrier.id,
      name: name.slice(0, 100),
      type,
      address: { street: formatStreet(area.countryCode, street, number), city: area.city, postalCode: area.postalCode, countryCode: area.countryCode },
      latitude: round6(Math.max(-90, Math.min(90, lat))),
      longitude: round6(Math.max(-180, Math.min(180, lon))),
      openingHours: openingHours(type, random),
      services: servicesOf(type, random),
    });
  }
  return points;
}
