// Event streams that clients opening together share (docs/architecture.md, "Concurrent writes
// and reads"). A client that opens a stream while an identical one is starting (it has not had its
// first message, so the Manager may not have read its picture yet) waits for the next one,
// which opens once that one has started, and no sooner than SharedStreamsOptions.minIntervalMs
// after it was opened, and serves every client that came meanwhile. The interval is what makes
// a crowd of clients share a few streams: without it, the faster the Manager starts a stream,
// the fewer clients arrive while it starts, and each event is sent once per stream.
// A stream therefore always begins with a picture read after its client arrived, as a call of
// its own would; the Manager sends each event once per shared stream instead of once per
// client, and the gateway receives it once. Each client still gets every message from the
// first; a client that leaves is taken out, and the stream is cancelled when its last client
// leaves. Only streams without a deadline of their own (no Grpc-Timeout) are shared.
import type { BytesStreamHandlers, OpenBytesStream } from "norsk-manager-contract/grpc/client.js";
import type { GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";

interface Member {
  readonly handlers: BytesStreamHandlers;
  readonly options: CallOptions;
  /** The stream it was given; undefined while it waits for the next one. */
  upstream?: Upstream;
}

type Open = (options: CallOptions) => OpenBytesStream;

interface Upstream {
  readonly key: string;
  readonly open: Open;
  readonly members: Set<Member>;
  /** When it was opened (performance.now()). */
  readonly openedAt: number;
  started: boolean;
  cancel: () => void;
}

interface KeyState {
  /** The stream starting now. */
  readonly starting: Upstream;
  /** The clients that came while it was starting: the next stream's. */
  readonly next: Set<Member>;
}

export interface SharedStreamsOptions {
  /** Told how many clients a stream serves beyond the one it was opened for. Default: nothing. */
  readonly onShared?: ((clients: number) => void) | undefined;
  /**
   * The least time, in ms, between opening a key's stream and opening the next one for the
   * clients that came after it: they wait at most this long beyond the first one's start. 0
   * opens the next as soon as the one before has started. Default: SHARE_INTERVAL_MS.
   */
  readonly minIntervalMs?: number | undefined;
}

/** SharedStreamsOptions.minIntervalMs's default: 100 ms. */
export const SHARE_INTERVAL_MS = 100;

/** Event streams shared by the clients opening them together, by sharedCallKey (key.ts). */
export class SharedStreams {
  readonly #keys = new Map<string, KeyState>();
  readonly #onShared: (clients: number) => void;
  readonly #minIntervalMs: number;

  constructor(options: SharedStreamsOptions = {}) {
    this.#onShared = options.onShared ?? (() => undefined);
    this.#minIntervalMs = options.minIntervalMs ?? SHARE_INTERVAL_MS;
  }

  /**
   * Keys with a stream starting, or clients waiting for the interval before the next (for
   * tests: none once every stream has started or ended and its interval has passed).
   */
  get starting(): number {
    return this.#keys.size;
  }

  /**
   * The stream `open(options)` would give, shared with the identical streams opening around it.
   * `key` is the stream's sharedCallKey (key.ts), which names everything it depends on.
   */
  open(key: string, options: CallOptions, open: Open): OpenBytesStream {
    if (options.timeoutMs !== undefined && Number.isFinite(options.timeoutMs)) return open(options);
    return (handlers) => {
      const member: Member = { handlers, options };
      const state = this.#keys.get(key);
      const waiting = state?.next;
      if (waiting === undefined) this.#start(key, new Set([member]), open);
      else waiting.add(member);
      return () => {
        if (member.upstream === undefined) waiting?.delete(member);
        else this.#leave(member.upstream, member);
      };
    };
  }

  #start(key: string, members: Set<Member>, open: Open): void {
    const upstream: Upstream = { key, open, members, openedAt: performance.now(), started: false, cancel: () => undefined };
    for (const member of members) member.upstream = upstream;
    if (members.size > 1) this.#onShared(members.size - 1);
    this.#keys.set(key, { starting: upstream, next: new Set() });
    const each = (act: (handlers: BytesStreamHandlers) => void): void => {
      for (const member of [...upstream.members]) act(member.handlers);
    };
    const first = [...members][0]?.options ?? {};
    // Shared by several clients, the call must not end with the first one's disconnect: their
    // leaving is counted instead (#leave).
    const options: CallOptions = members.size > 1 ? { ...first, signal: undefined } : first;
    let start: OpenBytesStream;
    try {
      start = open(options);
    } catch (error) {
      // A call that cannot even be made must not leave its key "starting" for ever.
      this.#started(upstream);
      throw error;
    }
    upstream.cancel = start({
      message: (bytes) => {
        this.#started(upstream);
        each((handlers) => { handlers.message(bytes); });
      },
      end: () => {
        this.#started(upstream);
        each((handlers) => { handlers.end(); });
      },
      error: (error: GrpcError) => {
        this.#started(upstream);
        each((handlers) => { handlers.error(error); });
      },
    });
  }

  /**
   * `upstream` has started (or ended, or lost its clients): the clients that came meanwhile,
   * and those that come until its interval has passed, get the next stream.
   */
  #started(upstream: Upstream): void {
    if (upstream.started) return;
    upstream.started = true;
    const state = this.#keys.get(upstream.key);
    if (state?.starting !== upstream) return;
    const wait = upstream.openedAt + this.#minIntervalMs - performance.now();
    if (wait <= 0) {
      this.#openNext(state);
      return;
    }
    // Unreferenced: clients waiting here hold their own requests open, not the process.
    setTimeout(() => { this.#openNext(state); }, wait).unref();
  }

  /** The next stream of `state`'s key, for the clients waiting; none waiting ends the key's state. */
  #openNext(state: KeyState): void {
    const { key, open } = state.starting;
    if (this.#keys.get(key) !== state) return;
    if (state.next.size === 0) this.#keys.delete(key);
    else this.#start(key, state.next, open);
  }

  #leave(upstream: Upstream, member: Member): void {
    if (!upstream.members.delete(member) || upstream.members.size > 0) return;
    upstream.cancel();
    this.#started(upstream);
  }
}
