/*
 * An incremental reader of RESP2 replies (https://redis.io/docs/latest/develop/reference/protocol-spec/), just
 * enough for the dedicated MGET connection: simple strings, errors, integers, bulk strings and arrays. Replies
 * arrive split across TCP chunks at any byte; an incomplete tail is kept until the next chunk completes it.
 */

/** An error reply (`-ERR ...`) from the server: a value, not a thrown error, so arrays may hold one. */
export class RespError extends Error {
  override readonly name = 'RespError';
}

/** The reader met a byte that is not RESP2: the connection can no longer be trusted and must be dropped. */
export class RespProtocolError extends Error {
  override readonly name = 'RespProtocolError';
}

export type RespReply = string | number | null | RespError | RespReply[];

const CR = 13;
const PLUS = 43; // +
const MINUS = 45; // -
const COLON = 58; // :
const DOLLAR = 36; // $
const STAR = 42; // *
const DIGIT_0 = 48;
const DIGIT_9 = 57;

const INCOMPLETE = Symbol('incomplete');

export class RespReader {
  private pending: Buffer | null = null;
  /** Read position inside the buffer being parsed; a field rather than a return tuple so parsing allocates nothing extra. */
  private position = 0;
  /** Bumped by reset(), so a feed() in progress stops handing out replies from a connection that was dropped. */
  private generation = 0;

  constructor(private readonly onReply: (reply: RespReply) => void) {}

  /** Parses every complete reply in `chunk` (plus what was left over) and hands each to onReply, in order. Throws RespProtocolError. */
  feed(chunk: Buffer): void {
    const buffer = this.pending === null ? chunk : Buffer.concat([this.pending, chunk]);
    this.pending = null;
    const generation = this.generation;
    let start = 0;
    while (start < buffer.length) {
      this.position = start;
      const reply = this.parse(buffer);
      if (reply === INCOMPLETE) break;
      start = this.position;
      this.onReply(reply);
      if (this.generation !== generation) return;
    }
    if (start < buffer.length) this.pending = buffer.subarray(start);
  }

  /** Forget a partial reply (the connection it came from is gone). */
  reset(): void {
    this.pending = null;
    this.generation++;
  }

  private parse(buffer: Buffer): RespReply | typeof INCOMPLETE {
    const at = this.position;
    if (at >= buffer.length) return INCOMPLETE;
    const lineEnd = buffer.indexOf(CR, at + 1);
    // The header line is complete only once its \n has arrived too.
    if (lineEnd === -1 || lineEnd + 1 >= buffer.length) return INCOMPLETE;
    const next = lineEnd + 2;
    switch (buffer[at]) {
      case DOLLAR: {
        const length = readInteger(buffer, at + 1, lineEnd);
        if (length < 0) {
          this.position = next;
          return null;
        }
        const end = next + length;
        if (end + 2 > buffer.length) return INCOMPLETE;
        this.position = end + 2;
        return buffer.toString('utf8', next, end);
      }
      case STAR: {
        const count = readInteger(buffer, at + 1, lineEnd);
        this.position = next;
        if (count < 0) return null;
        const items = new Array<RespReply>(count);
        for (let i = 0; i < count; i++) {
          const item = this.parse(buffer);
          if (item === INCOMPLETE) return INCOMPLETE;
          items[i] = item;
        }
        return items;
      }
      case PLUS:
        this.position = next;
        return buffer.toString('utf8', at + 1, lineEnd);
      case MINUS:
        this.position = next;
        return new RespError(buffer.toString('utf8', at + 1, lineEnd));
      case COLON:
        this.position = next;
        return readInteger(buffer, at + 1, lineEnd);
      default:
        throw new RespProtocolError(`unexpected byte ${buffer[at]} at the start of a reply`);
    }
  }
}

function readInteger(buffer: Buffer, start: number, end: number): number {
  let index = start;
  const negative = buffer[index] === MINUS;
  if (negative) index++;
  if (index === end) throw new RespProtocolError('empty number in a reply header');
  let value = 0;
  for (; index < end; index++) {
    const code = buffer[index]!;
    if (code < DIGIT_0 || code > DIGIT_9) throw new RespProtocolError('malformed number in a reply header');
    value = value * 10 + (code - DIGIT_0);
  }
  return negative ? -value : value;
}
