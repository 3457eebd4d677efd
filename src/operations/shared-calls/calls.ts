// Shared calls answered in one piece (docs/architecture.md, "Concurrent writes and reads"):
// identical reads share upstream calls. While a read of a key is in flight, the identical
// reads that arrive wait for the next one, which starts as soon as it ends and answers them all. A read is never answered by a call that started before
// it arrived, so it never sees a state older than a write acknowledged before it arrived: the
// reads stay linearizable, and the Manager sees at most one call per key at a time, however
// many clients ask.
//
// What each waiting read keeps of its own: its abort signal (a read whose client left is
// dropped, and a shared call that every reader left is cancelled), and its deadline (the shared
// call runs until the latest of its readers' deadlines; a reader whose own deadline comes first
// gets DEADLINE_EXCEEDED then). What the call carries for all of them: the first reader's
// metadata, so its request id and trace context; the rest of the metadata (Authorization,
// Grpc-Metadata-*) is part of the key, so that reads are only shared between readers that
// would send the Manager the same request.
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import type { CallOptions } from "norsk-manager-contract/grpc/types.js";

/**
 * What a reader gets of a value it shares with others: a search, for instance, gives each
 * reader its own way through the one stream. The reader of a call of its own gets the value.
 */
export type Share<V> = (value: V, options: CallOptions) => V;

interface Waiter<V> {
  readonly options: CallOptions;
  readonly share: Share<V> | undefined;
  /** ms since the epoch; Infinity when the read has no deadline. */
  readonly deadline: number;
  settled: boolean;
  resolve(value: V): void;
  reject(error: unknown): void;
  release(): void;
}

/** How a reader joins its group. */
interface WaiterOptions<V> {
  /**
   * Whether it waits for a later call, keeping its own deadline (a timer fails it then); the
   * first reader's deadline is its call's own.
   */
  readonly queued: boolean;
  /** What it gets of a value it shares with others; undefined: the value itself. */
  readonly share: Share<V> | undefined;
}

interface KeyState<V> {
  /** The readers of the call in flight. */
  running: Set<Waiter<V>>;
  /** The readers that arrived while it was in flight: the next call's. */
  next: Set<Waiter<V>>;
}

export interface SharedCallsOptions {
  /** Told how many reads a call answered beyond the one it was made for. Default: nothing. */
  readonly onShared?: ((reads: number) => void) | undefined;
}

/** Unary reads (and the start of a search) shared by identical readers, by sharedCallKey (key.ts). */
export class SharedCalls<V> {
  readonly #keys = new Map<string, KeyState<V>>();
  readonly #onShared: (reads: number) => void;

  constructor(options: SharedCallsOptions = {}) {
    this.#onShared = options.onShared ?? (() => undefined);
  }

  /** Keys with a call in flight (for tests: none once every read has settled). */
  get inFlight(): number {
    return this.#keys.size;
  }

  /**
   * `call(options)` once for this read and the identical reads around it. `key` is the
   * call's sharedCallKey (key.ts), which names everything the answer depends on. The value
   * of a call made for several reads reaches each through `share` when given.
   */
  read(key: string, options: CallOptions, call: (options: CallOptions) => Promise<V>, share?: Share<V>): Promise<V> {
    if (options.signal?.aborted === true) return Promise.reject(new GrpcError(Code.CANCELLED, "the read was abandoned before it started"));
    const state = this.#keys.get(key);
    if (state !== undefined) return this.#waiter(state.next, options, { queued: true, share });
    // Nothing in flight: this read's own call, with its own options, as without coalescing.
    const fresh: KeyState<V> = { running: new Set(), next: new Set() };
    this.#keys.set(key, fresh);
    const promise = this.#waiter(fresh.running, options, { queued: false, share });
    this.#start(key, fresh, call);
    return promise;
  }

  /** A reader in `group`. */
  #waiter(group: Set<Waiter<V>>, options: CallOptions, { queued, share }: WaiterOptions<V>): Promise<V> {
    return new Promise<V>((resolve, reject) => {
      const deadline = options.timeoutMs === undefined || !Number.isFinite(options.timeoutMs) ? Infinity : Date.now() + options.timeoutMs;
      const waiter: Waiter<V> = { options, share, deadline, settled: false, resolve, reject, release: () => undefined };
      group.add(waiter);
      const leave = (error: GrpcError): void => {
        if (waiter.settled) return;
        waiter.settled = true;
        waiter.release();
        group.delete(waiter);
        reject(error);
      };
      const onAbort = (): void => {
        leave(new GrpcError(Code.CANCELLED, "the read was abandoned"));
      };
      options.signal?.addEventListener("abort", onAbort, { once: true });
      const timer =
        queued && deadline !== Infinity
          ? setTimeout(() => {
              leave(new GrpcError(Code.DEADLINE_EXCEEDED, "deadline exceeded while waiting for a shared read"));
            }, deadline - Date.now())
          : undefined;
      waiter.release = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", onAbort);
      };
    });
  }

  /** Runs the call of `state.running`, then of the readers that arrived meanwhile, if any. */
  #start(key: string, state: KeyState<V>, call: (options: CallOptions) => Promise<V>): void {
    const readers = [...state.running];
    const shared = readers.length > 1 ? sharedOptions(readers) : undefined;
    const settle = (outcome: { value: V } | { error: unknown }): void => {
      shared?.done();
      const answering = [...state.running].filter((waiter) => !waiter.settled);
      for (const waiter of answering) {
        waiter.settled = true;
        waiter.release();
      }
      // Shared out before any reader runs on, so that no reader can move past what another
      // has yet to be given.
      for (const waiter of answering) {
        if ("error" in outcome) waiter.reject(outcome.error);
        else waiter.resolve(shared !== undefined && waiter.share !== undefined ? waiter.share(outcome.value, waiter.options) : outcome.value);
      }
      if (answering.length > 1) this.#onShared(answering.length - 1);
      state.running = state.next;
      state.next = new Set();
      if (state.running.size === 0) this.#keys.delete(key);
      else this.#start(key, state, call);
    };
    let pending: Promise<V>;
    try {
      pending = call(shared?.options ?? readers[0]?.options ?? {});
    } catch (error) {
      // A call that throws before it starts fails its readers like one that fails later.
      pending = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    pending.then(
      (value) => {
        settle({ value });
      },
      (error: unknown) => {
        settle({ error });
      },
    );
  }
}

/**
 * The options of a call shared by `readers`: the first one's metadata, the latest deadline, and
 * a signal that aborts once every reader has left; done() stops watching the readers.
 */
function sharedOptions<V>(readers: readonly Waiter<V>[]): { options: CallOptions; done(): void } {
  const controller = new AbortController();
  const onLeave = (): void => {
    if (readers.every((reader) => reader.settled)) controller.abort();
  };
  for (const reader of readers) reader.options.signal?.addEventListener("abort", onLeave);
  const latest = Math.max(...readers.map((reader) => reader.deadline));
  const first = readers[0]?.options ?? {};
  return {
    options: { ...first, timeoutMs: latest === Infinity ? first.timeoutMs : Math.max(0, latest - Date.now()), signal: controller.signal },
    done: () => {
      for (const reader of readers) reader.options.signal?.removeEventListener("abort", onLeave);
    },
  };
}
