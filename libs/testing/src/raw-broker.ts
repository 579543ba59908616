import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { HEADERS, type DeadLetter, type DeadLetterReason } from '@acs/bus';
import { testServerUrl } from './environment.js';

const AMQP_URL = testServerUrl('AMQP_URL');

/**
 * A plain amqplib connection, as a foreign publisher or an operator would use one: to send raw
 * bytes, read dead-letter queues and delete what a test declared. Opening it fails (never skips)
 * when the broker is unreachable.
 */
export class RawBroker {
  private readonly drained = new Map<string, DeadLetter[]>();

  private constructor(
    private readonly model: ChannelModel,
    readonly channel: ConfirmChannel,
  ) {}

  static async open(): Promise<RawBroker> {
    const model = await connect(AMQP_URL, { timeout: 5_000 });
    const channel = await model.createConfirmChannel();
    return new RawBroker(model, channel);
  }

  async publishRaw(exchange: string, routingKey: string, content: Buffer): Promise<void> {
    this.channel.publish(exchange, routingKey, content, { persistent: true });
    await this.channel.waitForConfirms();
  }

  /** Reading a queue consumes it, so what was read is kept and every call returns all of it. */
  async deadLetters(dlq: string, queue: string): Promise<DeadLetter[]> {
    const seen = this.drained.get(dlq) ?? [];
    this.drained.set(dlq, seen);
    for (let message = await this.channel.get(dlq, { noAck: true }); message; message = await this.channel.get(dlq, { noAck: true })) {
      const headers: Record<string, unknown> = message.properties.headers ?? {};
      seen.push({
        queue,
        routingKey: String(headers[HEADERS.routingKey]),
        content: message.content.toString('utf8'),
        reason: String(headers[HEADERS.reason]) as DeadLetterReason,
        attempts: Number(headers[HEADERS.attempts]),
        lastError: String(headers[HEADERS.lastError]),
        deadLetteredAt: String(headers[HEADERS.deadLetteredAt]),
        ...(typeof headers.traceparent === 'string' ? { traceparent: headers.traceparent } : {}),
      });
    }
    return [...seen];
  }

  async deleteAll(queues: Iterable<string>, exchanges: Iterable<string>): Promise<void> {
    for (const queue of queues) await this.channel.deleteQueue(queue);
    for (const exchange of exchanges) await this.channel.deleteExchange(exchange);
  }

  async close(): Promise<void> {
    await this.model.close();
  }
}
