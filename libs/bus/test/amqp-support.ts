import { createServer, connect as connectTcp, type Server, type Socket } from 'node:net';
import { connect, type ChannelModel, type ConfirmChannel } from 'amqplib';
import { createAmqpBus, HEADERS, type AmqpBus, type AmqpBusOptions, type DeadLetter, type DeadLetterReason } from '@acs/bus';
import { testServerUrl, uniqueName } from '@acs/testing';
import { captureLogs, waitFor } from './support.js';

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

/**
 * A TCP proxy in front of the broker. `cut()` destroys every proxied socket and refuses new ones,
 * which is what a client sees when the broker dies or restarts; `restore()` lets them through again.
 */
export class FlakyProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server = createServer((client) => this.accept(client));
  private readonly target = new URL(AMQP_URL);
  private refusing = false;
  private port = 0;

  static async start(): Promise<FlakyProxy> {
    const proxy = new FlakyProxy();
    proxy.port = await new Promise<number>((resolve, reject) => {
      proxy.server.once('error', reject);
      proxy.server.listen(0, '127.0.0.1', () => {
        const address = proxy.server.address();
        if (address === null || typeof address === 'string') reject(new Error('no TCP address'));
        else resolve(address.port);
      });
    });
    return proxy;
  }

  /** The broker URL with its host and port replaced by the proxy's. */
  get url(): string {
    const url = new URL(AMQP_URL);
    url.hostname = '127.0.0.1';
    url.port = String(this.port);
    return url.toString();
  }

  cut(): void {
    this.refusing = true;
    for (const socket of this.sockets) socket.destroy();
  }

  restore(): void {
    this.refusing = false;
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    if (this.refusing) {
      client.destroy();
      return;
    }
    const upstream = connectTcp(Number(this.target.port || 5672), this.target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => undefined);
      socket.on('close', () => {
        this.sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
