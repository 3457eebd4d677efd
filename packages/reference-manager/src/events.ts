// The in-process event bus: every committed change is published once, right after its
// transaction commits and in the same synchronous turn, so subscribers see changes in commit
// order. A subscriber that subscribes and then reads the store in one synchronous turn sees
// every change exactly once: either in what it read (committed before) or in its queue
// (committed after); this is how EventStream joins its snapshot to live events.
//
// Each subscriber's queue is bounded in bytes (the changes' encoded size, `sizeOf`): a
// subscriber whose queue would pass `queueBytes` (its client reads too slowly) is ended with
// RESOURCE_EXHAUSTED and its queue dropped, rather than letting a stalled reader pin the
// server's memory; its client can reconnect and get a fresh snapshot. A change larger than
// `queueBytes` is still delivered when it arrives at an empty queue: no single change can
// disconnect every subscriber. What a queue holds is released as it is consumed, and at once
// when the subscription ends.
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { EventStreamEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";

/** One committed change: the events it produced, in order, and a one-line summary for logs. */
export interface Change {
  readonly events: readonly EventStreamEvent[];
  readonly summary: string;
  /** When the change committed, in milliseconds since the Unix epoch. */
  readonly committedAtMs: number;
}

export interface EventBusOptions<T> {
  /** The most bytes (by `sizeOf`) of changes a subscriber may have waiting. No default: the Manager's is MANAGER_DEFAULTS.eventQueueBytes. */
  readonly queueBytes: number;
  /** A change's size in bytes; called once per change, when it is published to a subscriber. */
  readonly sizeOf: (change: T) => number;
}

export class EventBus<T = Change> {
  readonly #subscribers = new Set<Subscription<T>>();
  readonly #options: EventBusOptions<T>;
  #closed: GrpcError | undefined;

  constructor(options: EventBusOptions<T>) {
    if (!Number.isInteger(options.queueBytes) || options.queueBytes < 1) throw new RangeError("queueBytes must be a positive integer");
    this.#options = options;
  }

  get queueBytes(): number {
    return this.#options.queueBytes;
  }

  get subscriberCount(): number {
    return this.#subscribers.size;
  }

  /**
   * Publishes a change. `make` runs only when someone listens (building events reads the
   * store, which costs nothing to skip), and then at once: it must describe the state just
   * committed, not whatever the store holds later.
   */
  publish(make: () => T): void {
    if (this.#subscribers.size === 0) return;
    const change = make();
    const size = this.#options.sizeOf(change);
    for (const subscriber of this.#subscribers) subscriber.push(change, size);
  }

  /**
   * A new subscription receiving every change published from now on, until `signal` aborts
   * (the iterator then returns), the bus closes, or the subscriber overflows.
   */
  subscribe(signal: AbortSignal): Subscription<T> {
    const subscription = new Subscription<T>(this.#options.queueBytes, signal, () => this.#subscribers.delete(subscription));
    if (this.#closed !== undefined) subscription.end(this.#closed);
    else if (!signal.aborted) this.#subscribers.add(subscription);
    return subscription;
  }

  /** Ends every subscription, and every later one, with `reason`. */
  close(reason: GrpcError): void {
    this.#closed = reason;
    for (const subscriber of [...this.#subscribers]) subscriber.end(reason);
  }
}

export class Subscription<T> implements AsyncIterable<T> {
  #queue: { readonly change: T; readonly size: number }[] = [];
  #bytes = 0;
  #ended = false;
  #error: GrpcError | undefined;
  #wake: (() => void) | undefined;

  constructor(
    private readonly limitBytes: number,
    private readonly signal: AbortSignal,
    private readonly detach: () => void,
  ) {
    if (signal.aborted) this.#ended = true;
    else signal.addEventListener("abort", this.#onAbort, { once: true });
  }

  #onAbort = (): void => {
    this.end();
  };

  /** Number of changes waiting to be consumed. */
  get backlog(): number {
    return this.#queue.length;
  }

  /** Bytes of the changes waiting to be consumed. */
  get backlogBytes(): number {
    return this.#bytes;
  }

  push(change: T, size: number): void {
    if (this.#ended) return;
    if (this.#queue.length > 0 && this.#bytes + size > this.limitBytes) {
      this.end(new GrpcError(Code.RESOURCE_EXHAUSTED, `event subscriber fell more than ${this.limitBytes} bytes behind; reconnect`));
      return;
    }
    this.#queue.push({ change, size });
    this.#bytes += size;
    this.#notify();
  }

  /**
   * Ends the subscription and drops pending changes: the iterator then throws `error`, or
   * returns when there is none (the consumer is gone, so nothing is left to deliver to).
   */
  end(error?: GrpcError): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#error = error;
    this.#queue = [];
    this.#bytes = 0;
    this.signal.removeEventListener("abort", this.#onAbort);
    this.detach();
    this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    try {
      for (;;) {
        if (this.#ended) {
          if (this.#error !== undefined) throw this.#error;
          return;
        }
        const next = this.#queue.shift();
        if (next !== undefined) {
          this.#bytes -= next.size;
          yield next.change;
          continue;
        }
        await new Promise<void>((resolve) => {
          this.#wake = resolve;
        });
      }
    } finally {
      // The consumer stopped (return, throw, or end of stream): stop queueing for it.
      this.end();
    }
  }
}
