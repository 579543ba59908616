import { connect as connectTcp, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { markDependencyUnavailable } from '@acs/errors';
import { RespError, RespReader, type RespReply } from './resp-reader.js';

/*
 * A dedicated Redis connection for the gateway's per-request exchange: the MGET of the key record and the user's
 * authorization record, the INCRs of the limiter and quota counters (ARCHITECTURE.md, decision 3), and scripts
 * returning arrays. ioredis's general command machinery (a Command
 * object, its promise plumbing, argument flattening and a reply parser for every type) cost about half of what
 * the gateway added to a plain proxy (docs/performance.md); this path keeps only what one command needs:
 * - every MGET issued in one event-loop turn goes out in one write (pipelining), replies come back in order;
 * - at most one such write awaits its replies: calls made meanwhile are held and go out together in the turn
 *   after those replies arrive. Under load a write then carries about twice the requests (each write wakes
 *   Redis and each reply wakes us, which cost more than the commands), for less CPU per gateway request
 *   (figures in docs/performance.md). The price: a held call waits for at most one more round trip (with Redis on
 *   loopback the bench saw no change in p50 or p99). A held call is sent after it was made, so it still sees
 *   every write acknowledged before it was made;
 * - fail closed and fast, as the ioredis client is configured: while the connection is down a call rejects at
 *   once (the gateway then asks the owning services, which read their databases), a connect that does not
 *   complete or a reply that does not come within the timeouts drops the connection and rejects what waited;
 * - it connects on first use and reconnects with a capped backoff, so it comes back within about a second.
 * Reads only: every write still goes through ioredis, so ordering across the two connections is Redis's
 * usual one (a write acknowledged before a read is sent is seen by that read).
 */

export interface MgetConnectionOptions {
  /** redis:// or rediss:// URL; user, password and database index are honoured as ioredis does. */
  url: string;
  keyPrefix?: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
  maxReconnectDelayMs: number;
}

type MgetReply = (string | null)[];

interface Waiter {
  resolve(reply: RespReply): void;
  reject(error: Error): void;
  /** When the command was queued (Date.now()), for the reply timeout. */
  queuedAt: number;
}

type State = 'idle' | 'connecting' | 'ready' | 'down';

/**
 * The waiter of a batch, in the queue once per command: it collects the replies and settles once, with what
 * `shape` makes of them (the caller's own reading of the replies, so no further promise is chained per request).
 */
class BatchWaiter<T> implements Waiter {
  private readonly replies: RespReply[] = [];
  private error: Error | null = null;
  private settled = false;

  constructor(
    private readonly count: number,
    private readonly shape: (replies: RespReply[]) => T,
    private readonly done: (value: T) => void,
    private readonly failed: (error: Error) => void,
    readonly queuedAt: number,
  ) {}

  resolve(reply: RespReply): void {
    this.replies.push(reply);
    this.end();
  }

  /** An error reply counts as a reply (the first one is what the batch rejects with); a dropped connection ends it at once. */
  reject(error: Error): void {
    this.error ??= error;
    if (error instanceof RespError) {
      this.replies.push(error);
      this.end();
    } else this.finish();
  }

  private end(): void {
    if (this.replies.length === this.count) this.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    if (this.error) {
      this.failed(this.error);
      return;
    }
    let value: T;
    try {
      value = this.shape(this.replies);
    } catch (error) {
      this.failed(error as Error);
      return;
    }
    this.done(value);
  }
}

const asReplies = (replies: RespReply[]): RespReply[] => replies;

/** Replies to the connection's own set-up commands (AUTH, SELECT) must be OK; anything else ends the connection. */
const HANDSHAKE: Waiter['resolve'] = () => {};
const ignore = (): void => {};

export class MgetConnection {
  private state: State = 'idle';
  /** Set by close(): no new calls; the connection lives on only until the replies already asked for arrive. */
  private closed = false;
  private socket: Socket | null = null;
  private lastError: Error = new Error('redis connection not established');
  /** Bytes for the socket, written once per event-loop turn (or on connect). */
  private outgoing = '';
  /** MGETs in `outgoing`, not yet written. */
  private queued = 0;
  /** MGETs written and not yet answered (the set-up commands are not counted). */
  private inFlight = 0;
  private flushScheduled = false;
  /** Commands sent or queued on the current socket, oldest first; a reply settles the first. */
  private waiters: Waiter[] = [];
  private firstWaiter = 0;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private connectTimer: NodeJS.Timeout | null = null;
  private watchdog: NodeJS.Timeout | null = null;
  private drained: (() => void) | null = null;
  private readonly reader = new RespReader((reply) => this.settle(reply));
  private readonly target: URL;
  /** AUTH and SELECT from the URL, one encoded command each; sent first on every new socket. */
  private readonly handshake: string[];
  private readonly keyPrefix: string;

  constructor(private readonly options: MgetConnectionOptions) {
    this.target = new URL(options.url);
    if (this.target.protocol !== 'redis:' && this.target.protocol !== 'rediss:')
      throw new Error(`unsupported Redis URL scheme ${this.target.protocol}`);
    this.handshake = handshakeCommands(this.target);
    this.keyPrefix = options.keyPrefix ?? '';
  }

  mget(keys: readonly string[]): Promise<MgetReply> {
    return this.enqueue(this.mgetCommand(keys)) as Promise<MgetReply>;
  }

  /** MGET encoded (keys prefixed), for batch(). */
  mgetCommand(keys: readonly string[]): string {
    return this.keyCommand('MGET', keys);
  }

  /**
   * EVALSHA (or EVAL with the script's source) of a script that returns an array, in the same write as the
   * MGETs of the same turn: the gateway's read of the key and authorization records that also applies the
   * key's rate limits (ARCHITECTURE.md, decision 9). KEYS get the prefix; a NOSCRIPT error rejects (RespError).
   */
  evalArray(verb: 'EVALSHA' | 'EVAL', scriptOrSha: string, keys: readonly string[], args: readonly string[]): Promise<RespReply[]> {
    return this.enqueue(this.evalCommand(verb, scriptOrSha, keys, args));
  }

  /** EVALSHA/EVAL encoded (KEYS prefixed). */
  evalCommand(verb: 'EVALSHA' | 'EVAL', scriptOrSha: string, keys: readonly string[], args: readonly string[]): string {
    let command = `*${3 + keys.length + args.length}\r\n$${verb.length}\r\n${verb}\r\n$${Buffer.byteLength(scriptOrSha)}\r\n${scriptOrSha}\r\n`;
    const count = String(keys.length);
    command += `$${count.length}\r\n${count}\r\n`;
    for (const key of keys) {
      const name = this.keyPrefix + key;
      command += `$${Buffer.byteLength(name)}\r\n${name}\r\n`;
    }
    for (const arg of args) command += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
    return command;
  }

  /** A command on keys (each prefixed), then plain arguments, encoded for batch() and send(). */
  keyCommand(verb: string, keys: readonly string[], args: readonly string[] = []): string {
    let command = `*${1 + keys.length + args.length}\r\n$${verb.length}\r\n${verb}\r\n`;
    for (const key of keys) {
      const name = this.keyPrefix + key;
      command += `$${Buffer.byteLength(name)}\r\n${name}\r\n`;
    }
    for (const arg of args) command += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
    return command;
  }

  /**
   * `count` commands, already encoded one after the other in `payload`, in the same write and answered
   * together (replies come in order, so the last one's arrival means all are in): the gateway's per-request
   * MGET and counter INCRs, one round trip and one promise. Rejects with the first error reply among them.
   * `shape` reads the replies before the promise settles (what a `.then` would do, without a second promise
   * on every request); what it throws rejects.
   */
  batch(payload: string, count: number): Promise<RespReply[]>;
  batch<T>(payload: string, count: number, shape: (replies: RespReply[]) => T): Promise<T>;
  batch<T>(payload: string, count: number, shape?: (replies: RespReply[]) => T): Promise<T | RespReply[]> {
    const refused = this.refusal();
    if (refused !== null) return refused;
    this.outgoing += payload;
    this.queued += count;
    if (this.inFlight === 0) this.scheduleFlush();
    return new Promise<T | RespReply[]>((resolve, reject) => {
      // One waiter object for all the batch's replies (no closure per command): it settles on the last one.
      const waiter = new BatchWaiter<T | RespReply[]>(count, shape ?? asReplies, resolve, reject, Date.now());
      for (let i = 0; i < count; i++) this.waiters.push(waiter);
    });
  }

  /**
   * A command whose reply nobody waits for (a counter given back, an expiry set), sent with the next write.
   * Dropped silently while the connection is down: what it did is then lost with the outage, which the caller accepts.
   */
  send(command: string): void {
    if (this.refusal() !== null) return;
    this.outgoing += command;
    this.queued++;
    if (this.inFlight === 0) this.scheduleFlush();
    this.waiters.push({ resolve: ignore, reject: ignore, queuedAt: Date.now() });
  }

  private refusal(): Promise<never> | null {
    if (this.closed) return Promise.reject(new Error('cache is closed'));
    if (this.state === 'down') return Promise.reject(this.lastError);
    if (this.state === 'idle') this.connect();
    return null;
  }

  private enqueue(command: string): Promise<RespReply[]> {
    const refused = this.refusal();
    if (refused !== null) return refused;
    this.outgoing += command;
    this.queued++;
    // With a write in flight, its replies schedule the next one (see settle()).
    if (this.inFlight === 0) this.scheduleFlush();
    return new Promise<RespReply[]>((resolve, reject) => {
      const settleArray = (reply: RespReply): void => {
        if (Array.isArray(reply)) resolve(reply);
        else reject(new Error('redis answered MGET or a script with something other than an array'));
      };
      this.waiters.push({ resolve: settleArray, reject, queuedAt: Date.now() });
    });
  }

  /** Waits for replies already sent (up to the command timeout), then closes. Idempotent; later calls reject. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.clearTimer('reconnectTimer');
    if (this.firstWaiter < this.waiters.length) {
      await new Promise<void>((resolve) => {
        this.drained = resolve;
        setTimeout(resolve, this.options.commandTimeoutMs).unref();
      });
    }
    this.fail(new Error('cache is closed'));
  }

  private scheduleFlush(): void {
    if (this.state !== 'ready' || this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(this.flush);
  }

  private readonly flush = (): void => {
    this.flushScheduled = false;
    if (this.outgoing === '' || this.socket === null || this.state !== 'ready' || this.inFlight > 0) return;
    this.socket.write(this.outgoing);
    this.outgoing = '';
    this.inFlight = this.queued;
    this.queued = 0;
  };

  private connect(): void {
    this.state = 'connecting';
    const host = this.target.hostname.replace(/^\[|\]$/g, '') || '127.0.0.1';
    const port = Number(this.target.port || 6379);
    const socket =
      this.target.protocol === 'rediss:'
        ? connectTls({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}) })
        : connectTcp({ host, port });
    socket.setNoDelay(true);
    this.socket = socket;
    // The set-up commands go first, so their replies are the first ones back.
    if (this.handshake.length > 0) {
      const setUp = this.handshake.map(() => ({ resolve: HANDSHAKE, reject: ignore, queuedAt: Date.now() }));
      this.waiters = [...setUp, ...this.waiters.slice(this.firstWaiter)];
      this.firstWaiter = 0;
      this.outgoing = this.handshake.join('') + this.outgoing;
    }
    this.connectTimer = setTimeout(
      () => this.fail(new Error(`redis connect timeout after ${this.options.connectTimeoutMs} ms`)),
      this.options.connectTimeoutMs,
    );
    socket.once(this.target.protocol === 'rediss:' ? 'secureConnect' : 'connect', () => {
      if (this.socket !== socket) return;
      this.clearTimer('connectTimer');
      this.state = 'ready';
      this.watchdog = setInterval(this.checkReplyTimeout, Math.max(10, this.options.commandTimeoutMs / 4));
      this.watchdog.unref();
      this.flush();
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.socket !== socket) return;
      try {
        this.reader.feed(chunk);
      } catch (error) {
        this.fail(error as Error);
      }
    });
    socket.on('error', (error) => {
      if (this.socket === socket) this.fail(new Error(`redis connection failed: ${error.message}`, { cause: error }));
    });
    socket.on('close', () => {
      if (this.socket === socket) this.fail(new Error('redis connection closed'));
    });
  }

  private settle(reply: RespReply): void {
    const waiter = this.waiters[this.firstWaiter];
    if (waiter === undefined) {
      this.fail(new Error('redis sent a reply nobody asked for'));
      return;
    }
    this.waiters[this.firstWaiter++] = undefined as unknown as Waiter;
    this.failures = 0;
    if (this.firstWaiter === this.waiters.length) {
      this.waiters = [];
      this.firstWaiter = 0;
      this.drained?.();
    } else if (this.firstWaiter >= 1024 && this.firstWaiter * 2 >= this.waiters.length) {
      // Under steady load the queue may never empty: drop the settled head now and then.
      this.waiters = this.waiters.slice(this.firstWaiter);
      this.firstWaiter = 0;
    }
    if (waiter.resolve === HANDSHAKE) {
      if (reply !== 'OK') this.fail(reply instanceof Error ? reply : new Error('redis refused the connection set-up'));
      return;
    }
    if (--this.inFlight === 0 && this.queued > 0) this.scheduleFlush();
    if (reply instanceof RespError) waiter.reject(reply);
    else waiter.resolve(reply);
  }

  private readonly checkReplyTimeout = (): void => {
    const oldest = this.waiters[this.firstWaiter];
    if (oldest !== undefined && Date.now() - oldest.queuedAt > this.options.commandTimeoutMs) {
      this.fail(new Error(`redis did not answer within ${this.options.commandTimeoutMs} ms`));
    }
  };

  /** Drops the connection and rejects everything that waited on it; reconnects later unless closed. */
  private fail(error: Error): void {
    // Everything that ends a connection means Redis cannot serve right now (503 for a service's caller).
    markDependencyUnavailable(error);
    const socket = this.socket;
    this.socket = null;
    socket?.destroy();
    this.reader.reset();
    this.clearTimer('connectTimer');
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    const waiters = this.waiters;
    const first = this.firstWaiter;
    this.waiters = [];
    this.firstWaiter = 0;
    this.outgoing = '';
    this.queued = 0;
    this.inFlight = 0;
    this.lastError = error;
    for (let i = first; i < waiters.length; i++) waiters[i]!.reject(error);
    this.drained?.();
    this.drained = null;
    if (this.closed) return;
    this.state = 'down';
    this.failures++;
    const delay = Math.min(50 * 2 ** (this.failures - 1), this.options.maxReconnectDelayMs) + Math.floor(Math.random() * 100);
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      if (this.state === 'down') this.state = 'idle';
    }, delay);
    this.reconnectTimer.unref();
  }

  private clearTimer(name: 'reconnectTimer' | 'connectTimer'): void {
    const timer = this[name];
    if (timer) clearTimeout(timer);
    this[name] = null;
  }
}

/** AUTH and SELECT from the URL, as RESP commands; empty when neither is needed. */
function handshakeCommands(url: URL): string[] {
  const commands: string[][] = [];
  const password = decodeURIComponent(url.password);
  const username = decodeURIComponent(url.username);
  if (password !== '') commands.push(username !== '' ? ['AUTH', username, password] : ['AUTH', password]);
  const database = url.pathname.replace(/^\//, '');
  if (database !== '' && database !== '0') {
    if (!/^\d+$/.test(database)) throw new Error(`Redis URL database must be a number, got "${database}"`);
    commands.push(['SELECT', database]);
  }
  return commands.map(encodeCommand);
}

function encodeCommand(parts: string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join('')}`;
}
