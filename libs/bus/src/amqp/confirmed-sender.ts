import { randomUUID } from 'node:crypto';
import type { ConfirmChannel, Message, Options } from 'amqplib';
import { BusUnavailableError } from '../errors.js';

/** Lets the sender tell a returned (unroutable) message from a routed one; stripped before parking. */
export const SEND_ID_HEADER = 'x-bus-send-id';

export type SendOutcome = 'routed' | 'unroutable';

/**
 * Publishes on a ConfirmChannel and resolves only on the broker's ack. Sends are `mandatory`:
 * a message no queue accepts comes back as basic.return, which RabbitMQ sends before the ack for
 * the same message, so by the time the ack arrives we know whether it was routed. Without this a
 * move to a deleted retry queue would be confirmed and silently dropped.
 */
export class ConfirmedSender {
  private readonly returned = new Set<string>();

  constructor(
    private readonly channel: ConfirmChannel,
    private readonly timeoutMs: number,
  ) {
    channel.on('return', (message: Message) => {
      const id = message.properties.headers?.[SEND_ID_HEADER];
      if (typeof id === 'string') this.returned.add(id);
    });
  }

  send(exchange: string, routingKey: string, content: Buffer, options: Options.Publish): Promise<SendOutcome> {
    const sendId = randomUUID();
    const headers: Record<string, unknown> = { ...(options.headers as Record<string, unknown> | undefined), [SEND_ID_HEADER]: sendId };
    return new Promise<SendOutcome>((resolve, reject) => {
      let settled = false;
      const finish = (err: Error | null): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const wasReturned = this.returned.delete(sendId);
        if (err) reject(err);
        else resolve(wasReturned ? 'unroutable' : 'routed');
      };
      // A blocked or wedged broker may never answer; the caller (an outbox relay) must get its
      // turn back to retry later instead of waiting forever.
      const timer = setTimeout(() => finish(new BusUnavailableError(`no publisher confirm within ${this.timeoutMs} ms`)), this.timeoutMs);
      try {
        this.channel.publish(exchange, routingKey, content, { ...options, mandatory: true, headers }, (err: unknown) => {
          finish(err ? new BusUnavailableError('the broker did not confirm the message', { cause: err }) : null);
        });
      } catch (err) {
        // amqplib throws synchronously when the channel is already closed or a frame is oversized.
        finish(new BusUnavailableError('the message could not be sent', { cause: err }));
      }
    });
  }
}
