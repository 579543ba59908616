import { createAmqpBus, type AmqpBus, type AmqpBusOptions } from '@acs/bus';
import { testServerUrl, uniqueName, waitFor } from '@acs/testing';
import { captureLogs } from './support.js';

export const AMQP_URL = testServerUrl('AMQP_URL');

export async function connectedBus(overrides: Partial<AmqpBusOptions> = {}): Promise<{ bus: AmqpBus; exchange: string }> {
  const exchange = overrides.exchange ?? uniqueName('bus_test_ex');
  const bus = createAmqpBus({ url: AMQP_URL, logger: captureLogs('bus-amqp').logger, reconnectDelayMs: 50, ...overrides, exchange });
  await waitFor(`a connection to ${AMQP_URL}`, () => bus.ready(), 5_000).catch(async (err: unknown) => {
    await bus.close();
    throw err;
  });
  return { bus, exchange };
}
