/** Address: role-neutral and reusable (spec, "What the service does"). Fields: contract AddressRequest. */
export interface AddressInput {
  name: string;
  companyName?: string;
  street: string;
  street2?: string;
  city: string;
  postalCode: string;
  stateCode?: string;
  countryCode: string;
  email?: string;
  phone?: string;
  reference?: string;
}

export interface Address extends AddressInput {
  id: string;
  createdAt: string;
  updatedAt: string;
}
