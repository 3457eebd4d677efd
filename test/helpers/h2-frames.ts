// A hand-written HTTP/2 client over TLS, for what node's own client will not do: send more
// streams than the server allows, a header block it never finishes, a header list larger than
// the server advertised. Frames are written as RFC 9113 §4.1 lays them out; header blocks use
// HPACK literals without indexing (RFC 7541 §6.2.2), so no dynamic table is needed.
import { connect } from "node:tls";
import type { TLSSocket } from "node:tls";

export const FRAME = { DATA: 0x0, HEADERS: 0x1, RST_STREAM: 0x3, SETTINGS: 0x4, PING: 0x6, GOAWAY: 0x7, CONTINUATION: 0x9 } as const;
export const FLAG = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;
const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");

export interface Frame {
  readonly type: number;
  readonly flags: number;
  readonly streamId: number;
  readonly payload: Buffer;
}

export function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an `prefix`-bit prefix whose other bits are `high` (RFC 7541 §5.1). */
function integer(value: number, prefix: number, high: number): Buffer {
  const max = (1 << prefix) - 1;
  if (value < max) return Buffer.from([high | value]);
  const bytes = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    bytes.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}

function text(value: string): Buffer {
  const bytes = Buffer.from(value, "latin1");
  return Buffer.concat([integer(bytes.length, 7, 0), bytes]);
}

/** A header block of literals without indexing, each with a new name. */
export function headerBlock(headers: Readonly<Record<string, string>>): Buffer {
  return Buffer.concat(Object.entries(headers).flatMap(([name, value]) => [Buffer.from([0]), text(name), text(value)]));
}

export interface RawSession {
  readonly socket: TLSSocket;
  /** Every frame the server has sent so far. */
  readonly frames: Frame[];
  /** Resolves when the server closes the connection. */
  readonly closed: Promise<void>;
  write(bytes: Buffer): void;
  /** Resolves with the first frame (already received or to come) that `match` accepts. */
  next(match: (frame: Frame) => boolean): Promise<Frame>;
}

export interface RawSessionOptions {
  /** Whether each PING is answered, as a client must. Default: true; false stands for a client the server can no longer reach. */
  readonly answerPings?: boolean;
}

/** A TLS connection speaking h2 (ALPN) to `port`, with the preface and an empty SETTINGS sent. */
export function rawSession(port: number, ca: Buffer, options: RawSessionOptions = {}): Promise<RawSession> {
  const { answerPings = true } = options;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: "127.0.0.1", port, servername: "localhost", ca, ALPNProtocols: ["h2"] });
    const frames: Frame[] = [];
    const waiting: { match: (frame: Frame) => boolean; resolve: (frame: Frame) => void }[] = [];
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 9) {
        const length = buffered.readUIntBE(0, 3);
        if (buffered.length < 9 + length) break;
        const received: Frame = { type: buffered[3] ?? 0, flags: buffered[4] ?? 0, streamId: buffered.readUInt32BE(5) & 0x7fffffff, payload: buffered.subarray(9, 9 + length) };
        buffered = buffered.subarray(9 + length);
        frames.push(received);
        if (received.type === FRAME.SETTINGS && (received.flags & FLAG.ACK) === 0) socket.write(frame(FRAME.SETTINGS, FLAG.ACK, 0));
        // As every client must (RFC 9113 §6.7): the server may probe the connection so.
        if (answerPings && received.type === FRAME.PING && (received.flags & FLAG.ACK) === 0 && !socket.destroyed) socket.write(frame(FRAME.PING, FLAG.ACK, 0, received.payload));
        for (const waiter of waiting.filter((w) => w.match(received))) {
          waiting.splice(waiting.indexOf(waiter), 1);
          waiter.resolve(received);
        }
      }
    });
    const closed = new Promise<void>((done) => {
      socket.once("close", () => { done(); });
    });
    socket.once("error", reject);
    socket.once("secureConnect", () => {
      socket.write(Buffer.concat([PREFACE, frame(FRAME.SETTINGS, 0, 0)]));
      resolve({
        socket,
        frames,
        closed,
        write: (bytes) => socket.write(bytes),
        next: (match) => {
          const found = frames.find(match);
          return found === undefined ? new Promise((done) => waiting.push({ match, resolve: done })) : Promise.resolve(found);
        },
      });
    });
  });
}
