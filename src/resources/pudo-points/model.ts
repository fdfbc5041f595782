/** contract: PudoOpeningHours */
export interface OpeningHours {
  dayOfWeek: 'MONDAY' | 'TUESDAY' | 'WEDNESDAY' | 'THURSDAY' | 'FRIDAY' | 'SATURDAY' | 'SUNDAY';
  opensAt: string;
  closesAt: string;
}

export type PudoPointType = 'PARCEL_SHOP' | 'LOCKER' | 'POST_OFFICE';
export type PudoService = 'DROP_OFF' | 'PICKUP' | 'RETURNS';

/** contract: PudoPoint (without distanceMeters, which only query results carry). */
export interface PudoPoint {
  id: string;
  carrierId: string;
  name: string;
  type: PudoPointType;
  address: { street: string; city: string; postalCode: string; countryCode: string };
  latitude: number;
  longitude: number;
  openingHours: OpeningHours[];
  services: PudoService[];
}

/** contract: PudoPointQuery */
export interface PudoPointQueryInput {
  addressId?: string;
  postalCode?: string;
  countryCode?: string;
  carrierId?: string;
  limit?: number;
  latitude?: number;
  longitude?: number;
}

/** contract: PudoPointQueryResult */
export interface PudoPointQueryResult {
  queryId: string;
  items: (PudoPoint & { distanceMeters: number })[];
}

/** The carrier data point generation needs (a narrow view of the catalogue's Carrier). */
export interface PudoCarrier {
  id: string;
  code: string;
  name: string;
  countries: string[];
  capabilities: string[];
}
