// Event streams that clients opening together share (docs/ARCHITECTURE.md §5, Coalesced
// reads). A client that opens a stream while an identical one is starting (it has not had its
// first message, so the Manager may not have read its picture yet) waits for the next one,
// which opens as soon as that one has started and serves every client that came meanwhile.
// A stream therefore always begins with a picture read after its client arrived, as a call of
// its own would; the Manager sends each event once per shared stream instead of once per
// client, and the gateway receives it once. Each client still gets every message from the
// first; a client that leaves is taken out, and the stream is cancelled when its last client
// leaves. Only streams without a deadline of their own (no Grpc-Timeout) are shared.
import type { BytesStreamHandlers, OpenBytesStream } from "../grpc/client.js";
import type { GrpcError } from "../grpc/errors.js";
import type { CallOptions } from "../grpc/types.js";

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
  started: boolean;
  cancel: () => void;
}

interface KeyState {
  /** The stream starting now. */
  readonly starting: Upstream;
  /** The clients that came while it was starting: the next stream's. */
  readonly next: Set<Member>;
}

export interface StreamSharingOptions {
  /** Told how many clients a stream serves beyond the one it was opened for. Default: nothing. */
  readonly onShared?: ((clients: number) => void) | undefined;
}

export class StreamSharing {
  readonly #keys = new Map<string, KeyState>();
  readonly #onShared: (clients: number) => void;

  constructor(options: StreamSharingOptions = {}) {
    this.#onShared = options.onShared ?? (() => undefined);
  }

  /** Keys with a stream starting (for tests: none once every stream has started or ended). */
  get starting(): number {
    return this.#keys.size;
  }

  /**
   * The stream `open(options)` would give, shared with the identical streams opening around it.
   * `key` must name everything the stream depends on (the request, metadataKey(metadata)).
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
    const upstream: Upstream = { key, open, members, started: false, cancel: () => undefined };
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

  /** `upstream` has started (or ended, or lost its clients): the clients that came meanwhile get the next stream. */
  #started(upstream: Upstream): void {
    if (upstream.started) return;
    upstream.started = true;
    const state = this.#keys.get(upstream.key);
    if (state?.starting !== upstream) return;
    if (state.next.size === 0) this.#keys.delete(upstream.key);
    else this.#start(upstream.key, state.next, upstream.open);
  }

  #leave(upstream: Upstream, member: Member): void {
    if (!upstream.members.delete(member) || upstream.members.size > 0) return;
    upstream.cancel();
    this.#started(upstream);
  }
}
