/**
 * Just enough geography for plausible PUDO points offline: a few cities per country with their
 * coordinates and the postal-code prefixes that lead to them, and common street names per
 * language. Unknown countries and postal codes still get a stable, plausible answer.
 */
export interface City {
  name: string;
  lat: number;
  lon: number;
  /** Postal-code prefixes (normalised: upper case, no spaces) served from this city. */
  prefixes: string[];
}

export const CITIES: Record<string, City[]> = {
  DE: [
    { name: 'Berlin', lat: 52.52, lon: 13.405, prefixes: ['10', '12', '13', '1'] },
    { name: 'Potsdam', lat: 52.396, lon: 13.058, prefixes: ['14'] },
    { name: 'Hamburg', lat: 53.551, lon: 9.994, prefixes: ['20', '21', '22', '2'] },
    { name: 'Bremen', lat: 53.079, lon: 8.802, prefixes: ['28'] },
    { name: 'Kiel', lat: 54.323, lon: 10.123, prefixes: ['24'] },
    { name: 'Rostock', lat: 54.092, lon: 12.099, prefixes: ['18'] },
    { name: 'Dresden', lat: 51.05, lon: 13.738, prefixes: ['01', '0'] },
    { name: 'Leipzig', lat: 51.34, lon: 12.375, prefixes: ['04'] },
    { name: 'Hannover', lat: 52.376, lon: 9.732, prefixes: ['30', '3'] },
    { name: 'Braunschweig', lat: 52.269, lon: 10.521, prefixes: ['38'] },
    { name: 'Magdeburg', lat: 52.131, lon: 11.64, prefixes: ['39'] },
    { name: 'Bielefeld', lat: 52.03, lon: 8.532, prefixes: ['33'] },
    { name: 'Kassel', lat: 51.312, lon: 9.48, prefixes: ['34'] },
    { name: 'Düsseldorf', lat: 51.227, lon: 6.773, prefixes: ['40', '4'] },
    { name: 'Dortmund', lat: 51.514, lon: 7.468, prefixes: ['44'] },
    { name: 'Essen', lat: 51.456, lon: 7.012, prefixes: ['45'] },
    { name: 'Münster', lat: 51.96, lon: 7.626, prefixes: ['48'] },
    { name: 'Köln', lat: 50.938, lon: 6.96, prefixes: ['50', '51', '5'] },
    { name: 'Bonn', lat: 50.737, lon: 7.098, prefixes: ['53'] },
    { name: 'Aachen', lat: 50.776, lon: 6.084, prefixes: ['52'] },
    { name: 'Mainz', lat: 49.993, lon: 8.247, prefixes: ['55'] },
    { name: 'Frankfurt am Main', lat: 50.11, lon: 8.682, prefixes: ['60', '61', '63', '6'] },
    { name: 'Wiesbaden', lat: 50.082, lon: 8.24, prefixes: ['65'] },
    { name: 'Saarbrücken', lat: 49.234, lon: 6.997, prefixes: ['66'] },
    { name: 'Mannheim', lat: 49.488, lon: 8.466, prefixes: ['68'] },
    { name: 'Stuttgart', lat: 48.776, lon: 9.183, prefixes: ['70', '71', '7'] },
    { name: 'Karlsruhe', lat: 49.007, lon: 8.404, prefixes: ['76'] },
    { name: 'Freiburg im Breisgau', lat: 47.999, lon: 7.842, prefixes: ['79'] },
    { name: 'München', lat: 48.137, lon: 11.576, prefixes: ['80', '81', '85', '8'] },
    { name: 'Augsburg', lat: 48.371, lon: 10.898, prefixes: ['86'] },
    { name: 'Nürnberg', lat: 49.452, lon: 11.077, prefixes: ['90', '91', '9'] },
    { name: 'Regensburg', lat: 49.013, lon: 12.102, prefixes: ['93'] },
    { name: 'Würzburg', lat: 49.791, lon: 9.953, prefixes: ['97'] },
    { name: 'Erfurt', lat: 50.978, lon: 11.029, prefixes: ['99'] },
  ],
  AT: [
    { name: 'Wien', lat: 48.208, lon: 16.373, prefixes: ['1', '2'] },
    { name: 'Linz', lat: 48.306, lon: 14.286, prefixes: ['4'] },
    { name: 'Salzburg', lat: 47.81, lon: 13.055, prefixes: ['5'] },
    { name: 'Innsbruck', lat: 47.269, lon: 11.404, prefixes: ['6'] },
    { name: 'Graz', lat: 47.07, lon: 15.439, prefixes: ['8'] },
    { name: 'Klagenfurt', lat: 46.624, lon: 14.308, prefixes: ['9'] },
  ],
  CH: [
    { name: 'Zürich', lat: 47.377, lon: 8.54, prefixes: ['8'] },
    { name: 'Bern', lat: 46.948, lon: 7.447, prefixes: ['3'] },
    { name: 'Basel', lat: 47.559, lon: 7.588, prefixes: ['4'] },
    { name: 'Genève', lat: 46.204, lon: 6.143, prefixes: ['12', '1'] },
    { name: 'Luzern', lat: 47.05, lon: 8.309, prefixes: ['6'] },
  ],
  NL: [
    { name: 'Amsterdam', lat: 52.368, lon: 4.904, prefixes: ['10', '11', '1'] },
    { name: 'Den Haag', lat: 52.07, lon: 4.3, prefixes: ['25', '2'] },
    { name: 'Rotterdam', lat: 51.924, lon: 4.478, prefixes: ['30', '31', '3'] },
    { name: 'Utrecht', lat: 52.091, lon: 5.122, prefixes: ['35'] },
    { name: 'Eindhoven', lat: 51.441, lon: 5.478, prefixes: ['56', '5'] },
    { name: 'Groningen', lat: 53.219, lon: 6.567, prefixes: ['97', '9'] },
  ],
  BE: [
    { name: 'Bruxelles', lat: 50.85, lon: 4.352, prefixes: ['10', '11', '12', '1'] },
    { name: 'Antwerpen', lat: 51.219, lon: 4.402, prefixes: ['20', '2'] },
    { name: 'Gent', lat: 51.054, lon: 3.717, prefixes: ['90', '9'] },
    { name: 'Liège', lat: 50.633, lon: 5.567, prefixes: ['40', '4'] },
  ],
  LU: [{ name: 'Luxembourg', lat: 49.611, lon: 6.13, prefixes: ['L', '1', '2'] }],
  FR: [
    { name: 'Paris', lat: 48.857, lon: 2.352, prefixes: ['75', '92', '93', '94'] },
    { name: 'Lyon', lat: 45.764, lon: 4.836, prefixes: ['69'] },
    { name: 'Marseille', lat: 43.297, lon: 5.37, prefixes: ['13'] },
    { name: 'Toulouse', lat: 43.605, lon: 1.444, prefixes: ['31'] },
    { name: 'Lille', lat: 50.629, lon: 3.057, prefixes: ['59'] },
    { name: 'Bordeaux', lat: 44.838, lon: -0.579, prefixes: ['33'] },
    { name: 'Strasbourg', lat: 48.573, lon: 7.752, prefixes: ['67'] },
    { name: 'Nantes', lat: 47.218, lon: -1.554, prefixes: ['44'] },
  ],
  GB: [
    { name: 'London', lat: 51.507, lon: -0.128, prefixes: ['EC', 'WC', 'N', 'E', 'SE', 'SW', 'W', 'NW'] },
    { name: 'Manchester', lat: 53.481, lon: -2.243, prefixes: ['M'] },
    { name: 'Birmingham', lat: 52.486, lon: -1.89, prefixes: ['B'] },
    { name: 'Leeds', lat: 53.801, lon: -1.549, prefixes: ['LS'] },
    { name: 'Glasgow', lat: 55.864, lon: -4.252, prefixes: ['G'] },
    { name: 'Edinburgh', lat: 55.953, lon: -3.188, prefixes: ['EH'] },
    { name: 'Bristol', lat: 51.455, lon: -2.588, prefixes: ['BS'] },
    { name: 'Liverpool', lat: 53.408, lon: -2.992, prefixes: ['L'] },
  ],
  IE: [{ name: 'Dublin', lat: 53.35, lon: -6.26, prefixes: ['D'] }],
  PL: [
    { name: 'Warszawa', lat: 52.23, lon: 21.012, prefixes: ['00', '01', '02', '03', '04', '0'] },
    { name: 'Kraków', lat: 50.065, lon: 19.945, prefixes: ['30', '31', '3'] },
    { name: 'Wrocław', lat: 51.108, lon: 17.039, prefixes: ['50', '51', '5'] },
    { name: 'Poznań', lat: 52.406, lon: 16.925, prefixes: ['60', '61', '6'] },
    { name: 'Gdańsk', lat: 54.352, lon: 18.647, prefixes: ['80', '8'] },
    { name: 'Łódź', lat: 51.759, lon: 19.456, prefixes: ['90', '91', '9'] },
  ],
  CZ: [
    { name: 'Praha', lat: 50.076, lon: 14.438, prefixes: ['1'] },
    { name: 'Brno', lat: 49.195, lon: 16.607, prefixes: ['6'] },
    { name: 'Ostrava', lat: 49.82, lon: 18.262, prefixes: ['7'] },
  ],
  DK: [
    { name: 'København', lat: 55.676, lon: 12.568, prefixes: ['1', '2'] },
    { name: 'Aarhus', lat: 56.163, lon: 10.204, prefixes: ['8'] },
    { name: 'Odense', lat: 55.404, lon: 10.402, prefixes: ['5'] },
  ],
  SE: [
    { name: 'Stockholm', lat: 59.329, lon: 18.069, prefixes: ['1'] },
    { name: 'Göteborg', lat: 57.709, lon: 11.975, prefixes: ['4'] },
    { name: 'Malmö', lat: 55.605, lon: 13.004, prefixes: ['2'] },
  ],
  NO: [
    { name: 'Oslo', lat: 59.914, lon: 10.752, prefixes: ['0', '1'] },
    { name: 'Bergen', lat: 60.391, lon: 5.322, prefixes: ['5'] },
  ],
  FI: [
    { name: 'Helsinki', lat: 60.17, lon: 24.938, prefixes: ['0'] },
    { name: 'Tampere', lat: 61.498, lon: 23.761, prefixes: ['3'] },
  ],
  IT: [
    { name: 'Roma', lat: 41.903, lon: 12.496, prefixes: ['00'] },
    { name: 'Milano', lat: 45.464, lon: 9.19, prefixes: ['20'] },
    { name: 'Napoli', lat: 40.852, lon: 14.268, prefixes: ['80'] },
    { name: 'Torino', lat: 45.07, lon: 7.687, prefixes: ['10'] },
  ],
  ES: [
    { name: 'Madrid', lat: 40.417, lon: -3.704, prefixes: ['28'] },
    { name: 'Barcelona', lat: 41.385, lon: 2.173, prefixes: ['08'] },
    { name: 'Valencia', lat: 39.47, lon: -0.376, prefixes: ['46'] },
    { name: 'Sevilla', lat: 37.389, lon: -5.984, prefixes: ['41'] },
  ],
  PT: [
    { name: 'Lisboa', lat: 38.722, lon: -9.139, prefixes: ['1'] },
    { name: 'Porto', lat: 41.158, lon: -8.629, prefixes: ['4'] },
  ],
  HU: [{ name: 'Budapest', lat: 47.498, lon: 19.04, prefixes: ['1'] }],
  US: [
    { name: 'New York', lat: 40.713, lon: -74.006, prefixes: ['100', '101', '102', '10', '11'] },
    { name: 'Chicago', lat: 41.878, lon: -87.63, prefixes: ['606', '60'] },
    { name: 'Los Angeles', lat: 34.052, lon: -118.244, prefixes: ['900', '90', '91'] },
    { name: 'Houston', lat: 29.76, lon: -95.37, prefixes: ['770', '77'] },
    { name: 'Seattle', lat: 47.606, lon: -122.332, prefixes: ['981', '98'] },
  ],
  CA: [
    { name: 'Toronto', lat: 43.653, lon: -79.383, prefixes: ['M'] },
    { name: 'Montréal', lat: 45.502, lon: -73.567, prefixes: ['H'] },
    { name: 'Vancouver', lat: 49.283, lon: -123.121, prefixes: ['V'] },
  ],
};

type Language = 'de' | 'nl' | 'fr' | 'en' | 'pl' | 'it' | 'es' | 'nordic' | 'cs' | 'pt';

const LANGUAGE: Record<string, Language> = {
  DE: 'de', AT: 'de', CH: 'de', NL: 'nl', BE: 'nl', LU: 'fr', FR: 'fr', GB: 'en', IE: 'en', US: 'en', CA: 'en', AU: 'en',
  PL: 'pl', IT: 'it', ES: 'es', DK: 'nordic', SE: 'nordic', NO: 'nordic', FI: 'nordic', CZ: 'cs', PT: 'pt',
};

const STREETS: Record<Language, string[]> = {
  de: ['Hauptstraße', 'Bahnhofstraße', 'Schulstraße', 'Gartenstraße', 'Bergstraße', 'Lindenstraße', 'Kirchstraße', 'Goethestraße', 'Schillerstraße', 'Marktplatz', 'Poststraße', 'Friedrichstraße', 'Ringstraße', 'Mühlenweg', 'Am Rathaus'],
  nl: ['Kerkstraat', 'Dorpsstraat', 'Stationsweg', 'Molenweg', 'Schoolstraat', 'Markt', 'Nieuwstraat', 'Julianastraat', 'Wilhelminastraat', 'Beatrixlaan', 'Hoofdstraat'],
  fr: ['Rue de la République', 'Rue Victor Hugo', 'Avenue Jean Jaurès', 'Rue de la Gare', "Place de l'Église", 'Rue Pasteur', 'Boulevard Gambetta', 'Rue Nationale', 'Rue du Commerce', 'Avenue de la Liberté'],
  en: ['High Street', 'Station Road', 'Church Street', 'Victoria Road', 'Main Street', 'Park Road', 'Green Lane', 'Mill Lane', 'King Street', 'Queen Street', 'Market Square'],
  pl: ['ulica Długa', 'ulica Polna', 'ulica Leśna', 'ulica Słoneczna', 'ulica Szkolna', 'ulica Ogrodowa', 'ulica Lipowa', 'ulica Kościuszki', 'ulica Mickiewicza', 'ulica Kolejowa'],
  it: ['Via Roma', 'Via Garibaldi', 'Via Mazzini', 'Corso Italia', 'Via Dante', 'Via Verdi', 'Via Cavour', 'Piazza del Popolo'],
  es: ['Calle Mayor', 'Calle Real', 'Avenida de la Constitución', 'Calle de la Iglesia', 'Plaza Mayor', 'Calle Nueva', 'Avenida de Andalucía'],
  nordic: ['Storgatan', 'Kyrkogatan', 'Drottninggatan', 'Nygatan', 'Vestergade', 'Østergade', 'Storgata', 'Skolegade', 'Torget'],
  cs: ['Nádražní', 'Hlavní', 'Školní', 'Komenského', 'Husova', 'Masarykova', 'Palackého'],
  pt: ['Rua Direita', 'Avenida da Liberdade', 'Rua do Comércio', 'Rua da Igreja', 'Rua Nova'],
};

/** Countries that write the house number before the street ("12 High Street"). */
const NUMBER_FIRST = new Set(['GB', 'IE', 'US', 'CA', 'AU', 'FR', 'LU']);

/** Street names common in a country's language (English for countries we know nothing about). */
export function streetsOf(countryCode: string): string[] {
  return STREETS[LANGUAGE[countryCode] ?? 'en'];
}

/** A street line in the country's order, e.g. 'Hauptstraße 12' or '12 High Street'. */
export function formatStreet(countryCode: string, street: string, number: number): string {
  return NUMBER_FIRST.has(countryCode) ? `${number} ${street}` : `${street} ${number}`;
}

/** Postal codes compared without spaces or case (e.g. 'sw1a 2aa' = 'SW1A2AA'). */
export function normalizePostalCode(postalCode: string): string {
  return postalCode.replace(/[\s-]+/g, '').toUpperCase();
}

/**
 * The city a postal code most plausibly belongs to: the longest matching prefix; without a
 * match, a city of the country chosen by `pick` (stable for the postal code).
 */
export function cityFor(countryCode: string, postalCode: string, pick: (count: number) => number): City | undefined {
  const cities = CITIES[countryCode];
  if (!cities) return undefined;
  const normalized = normalizePostalCode(postalCode);
  let best: City | undefined;
  let bestLength = 0;
  for (const city of cities) {
    for (const prefix of city.prefixes) {
      if (normalized.startsWith(prefix) && prefix.length > bestLength) {
        best = city;
        bestLength = prefix.length;
      }
    }
  }
  return best ?? cities[pick(cities.length)];
}

/** Great-circle distance in metres (haversine, mean Earth radius). */
export function distanceMeters(a: { lat: number; lon: number }, b: { lat: number; lon: number }): number {
  const rad = Math.PI / 180;
  const dLat = (b.lat - a.lat) * rad;
  const dLon = (b.lon - a.lon) * rad;
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(dLon / 2) ** 2;
  return Math.round(2 * 6_371_000 * Math.asin(Math.min(1, Math.sqrt(h))));
}
