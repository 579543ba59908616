import { consumeUserDeleted, type Bus, type Subscription } from '@acs/bus';
import type { Db } from '@acs/db';
import type { Logger } from '@acs/logger';
import { deleteDevicesOfOwner } from '../data-access/devices-repository.js';

/**
 * A deleted account (issue 32 item 5): the user's devices are erased (serial numbers and names are
 * theirs; a serial is then free to register to someone else). A redelivery deletes nothing more.
 * `queue`: device's durable queue for identity's user events (USER_EVENTS_QUEUE, device.user-events), bound to user.*.
 */
export function startUserDeletedConsumer(deps: { db: Db; logger: Logger }, bus: Bus, queue: string): Promise<Subscription> {
  return consumeUserDeleted(bus, queue, async (userId) => {
    const erased = await deleteDevicesOfOwner(deps.db, userId);
    deps.logger.info({ audit: 'user.devices_erased', userId, erased }, 'devices of a deleted account erased');
  });
}
