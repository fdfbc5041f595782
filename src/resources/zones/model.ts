/** contract: PostalCodeRange (inclusive bounds). */
export interface PostalCodeRange {
  countryCode: string;
  from: string;
  to: string;
}

/** contract: ZoneRequest (contract/DECISIONS.md "Zone fields and level"). */
export interface ZoneInput {
  name: string;
  countryCodes: string[];
  postalCodeRanges?: PostalCodeRange[];
}

/** contract: Zone */
export interface Zone extends ZoneInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}

/** A destination tested against zones. */
export interface Destination {
  countryCode: string;
  postalCode: string;
}
