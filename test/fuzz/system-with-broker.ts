import { connect } from 'amqplib';
import { subscriptionQueueNames } from '@acs/bus';
import { identityConfigSchema } from '@acs/identity-service';
import { testServerUrl, uniqueName } from '@acs/testing';
import { startSystemUnderTest, type SystemUnderTest } from '../e2e/system-harness.js';

// The launcher leaves identity's retry delays at their defaults; cleanup needs them to name the retry queues.
const IDENTITY_RETRY_DELAYS = identityConfigSchema.shape.SUBSCRIPTION_EVENTS_RETRY_DELAYS_MS.parse(undefined);

/**
 * The whole platform on PostgreSQL, Redis and RabbitMQ (its own exchange and queues), as a third
 * party meets it: the fuzz suite and the generated-client journey run against this.
 */
export async function startSystemWithBroker(overrides: Record<string, string> = {}): Promise<SystemUnderTest> {
  const exchange = uniqueName('acs_third_party_events');
  const queue = uniqueName('acs_third_party_identity');
  const sut = await startSystemUnderTest({
    AMQP_URL: testServerUrl('AMQP_URL'),
    BUS_EXCHANGE: exchange,
    SUBSCRIPTION_EVENTS_QUEUE: queue,
    ...overrides,
  });
  return {
    ...sut,
    async stop() {
      await sut.stop();
      // What the system declared on the shared broker goes with the run.
      const connection = await connect(testServerUrl('AMQP_URL'));
      const channel = await connection.createChannel();
      for (const name of subscriptionQueueNames(queue, IDENTITY_RETRY_DELAYS)) await channel.deleteQueue(name);
      await channel.deleteExchange(exchange);
      await connection.close();
    },
  };
}
