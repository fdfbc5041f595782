/**
 * What Delivery Options and Shipping Quotes need to know about a Service Definition of the
 * account (contract: ServiceDefinition). A narrow view so those families do not depend on how
 * service definitions are stored.
 */
export interface ServiceDefinitionRef {
  id: string;
  carrierDefinitionId: string;
  carrierId: string;
  serviceId: string;
  name: string;
  active: boolean;
}

export interface ServiceDefinitionLookup {
  /** The account's Service Definition, or undefined when unknown there. */
  find(accountId: string, id: string): ServiceDefinitionRef | undefined;
}

