import type { ResourceDeps } from '../shared/domain-deps.js';
import { ruleViolation } from '../../errors/problem.js';
import { createAccountResources } from '../shared/account-resources.js';
import type { ShipmentChannel, ShipmentChannelInput } from './model.js';

export const SHIPMENT_CHANNELS = 'shipment-channels';

/**
 * Shipment Channels: how an account's documents are rendered (label format and size), its unit
 * preferences and customs defaults. ZPL prints only on 4×6 in label stock; at most one channel
 * is the account's default — making one default clears the flag on the previous one (which
 * publishes its own UPDATED event). Events: SHIPMENT_CHANNEL CREATED/UPDATED/DELETED.
 *
 * @example
 * channels.create(accountId, { name: 'Webshop', documentRendering: { labelFormat: 'PDF', labelSize: 'A6' }, default: true })
 */
export function createShipmentChannelService(core: ResourceDeps) {
  const base = createAccountResources<ShipmentChannelInput, ShipmentChannel>(core, {
    collection: SHIPMENT_CHANNELS,
    topic: 'SHIPMENT_CHANNEL',
    label: 'Shipment Channel',
    check(_accountId, input) {
      const { labelFormat, labelSize } = input.documentRendering;
      if (labelFormat === 'ZPL' && labelSize !== 'LABEL_4X6') {
        throw ruleViolation('body/documentRendering/labelSize', `ZPL labels print on 4x6 in thermal label stock: use LABEL_4X6 (got ${labelSize})`);
      }
    },
    build: (input, meta, accountId) => ({
      ...meta,
      accountId,
      name: input.name,
      documentRendering: input.documentRendering,
      units: input.units,
      customs: input.customs,
      default: input.default ?? false,
    }),
  });

  /** Keeps "at most one default": the channel just made default takes the flag from the others. */
  function takeDefault(accountId: string, channel: ShipmentChannel): ShipmentChannel {
    if (!channel.default) return channel;
    for (const other of base.all(accountId)) {
      if (other.id !== channel.id && other.default) base.save(accountId, { ...other, default: false });
    }
    return channel;
  }

  return {
    ...base,
    create: (accountId: string, input: ShipmentChannelInput) => takeDefault(accountId, base.create(accountId, input)),
    replace: (accountId: string, id: string, input: ShipmentChannelInput) => takeDefault(accountId, base.replace(accountId, id, input)),
    /** The account's default channel, if one is marked. */
    defaultChannel: (accountId: string): ShipmentChannel | undefined => base.all(accountId).find((c) => c.default),
  };
}

export type ShipmentChannelService = ReturnType<typeof createShipmentChannelService>;
