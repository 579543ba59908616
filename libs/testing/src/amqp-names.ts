import { connect } from 'amqplib';
import { testServerUrl } from './environment.js';

/** Removes queues and exchanges a test or tool declared on the shared broker (missing ones are fine). */
export async function deleteAmqpObjects(names: { queues?: readonly string[]; exchanges?: readonly string[] }): Promise<void> {
  const connection = await connect(testServerUrl('AMQP_URL'));
  try {
    const channel = await connection.createChannel();
    for (const queue of names.queues ?? []) await channel.deleteQueue(queue);
    for (const exchange of names.exchanges ?? []) await channel.deleteExchange(exchange);
    await channel.close();
  } finally {
    await connection.close();
  }
}
