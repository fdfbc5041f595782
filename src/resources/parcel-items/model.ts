import type { components } from '../../client/schema.js';
import type { Money } from '../parcels/model.js';

type Schemas = components['schemas'];

/** contract: ParcelItemRequest (contract/DECISIONS.md "Parcel Item fields"). */
export type ParcelItemInput = Schemas['ParcelItemRequest'];

/** contract: ParcelItem */
export type ParcelItem = Schemas['ParcelItem'];
