// Group commit: the writes of every request handled in one turn of the event loop share one
// COMMIT, made at the end of the turn (setImmediate). A COMMIT on disk costs several times the
// writes it makes durable, so this is what lets the Manager keep up with a client making
// dozens of concurrent calls. The contracts are those of one transaction per request:
// - a request's writes are applied at once (synchronously, all or nothing), so requests are
//   serialised in the order their handlers run, and each sees the writes of those before it;
// - its reply, success or error, is sent only after the batch holding those writes (and any
//   it read) has committed: `settled()`;
// - its events are built when its writes are applied (they describe that moment) and
//   published after the COMMIT, in apply order, which is commit order;
// - anything that answers with what it reads (JobSearch, an EventStream's picture) calls
//   `flush()` first, so it never shows uncommitted data, and a new subscriber joins between
//   two batches, never inside one.
// When a COMMIT fails, the whole batch is rolled back: its requests fail with UNAVAILABLE and
// their events are dropped.
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import type { EventStreamEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Change, EventBus } from "./events.js";
import type { Store } from "./store.js";

export interface ChangeDescription {
  /** The events, in order; undefined entries (e.g. a job deleted since) are skipped. */
  readonly events: readonly (EventStreamEvent | undefined)[];
  readonly summary: string;
}

export class GroupCommit {
  #changes: Change[] = [];
  #waiters: { resolve: () => void; reject: (error: GrpcError) => void }[] = [];
  #scheduled: NodeJS.Immediate | undefined;

  constructor(
    private readonly store: Store,
    private readonly bus: EventBus,
    /** Told why a COMMIT failed (the callers only learn UNAVAILABLE). */
    private readonly onCommitError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * Applies `write` now, inside the open batch; queues what `describe` says changed (built
   * now, only when someone listens) for publication after the COMMIT. Returns what `write`
   * returned; when `write` throws, nothing of it is written or queued.
   */
  apply<R>(write: () => R, describe: (result: R) => ChangeDescription): R {
    let result: R;
    try {
      result = this.store.write(write);
    } finally {
      if (this.store.pending) this.#schedule();
    }
    if (this.bus.subscriberCount > 0) {
      const { events, summary } = describe(result);
      this.#changes.push({ events: events.filter((e) => e !== undefined), summary, committedAtMs: 0 });
    }
    return result;
  }

  /** Resolves once everything applied so far has committed (at once when nothing is pending). */
  settled(): Promise<void> {
    if (!this.store.pending) return Promise.resolve();
    this.#schedule();
    return new Promise((resolve, reject) => {
      this.#waiters.push({ resolve, reject });
    });
  }

  /** Commits the open batch now, publishes its changes and releases its replies. */
  flush(): void {
    if (this.#scheduled !== undefined) {
      clearImmediate(this.#scheduled);
      this.#scheduled = undefined;
    }
    const changes = this.#changes;
    const waiters = this.#waiters;
    this.#changes = [];
    this.#waiters = [];
    try {
      this.store.commit();
    } catch (error) {
      this.onCommitError(error);
      const failure = new GrpcError(Code.UNAVAILABLE, "the manager could not commit its writes; nothing was changed");
      for (const waiter of waiters) waiter.reject(failure);
      return;
    }
    const committedAtMs = Date.now();
    for (const change of changes) this.bus.publish(() => ({ ...change, committedAtMs }));
    for (const waiter of waiters) waiter.resolve();
  }

  #schedule(): void {
    this.#scheduled ??= setImmediate(() => {
      this.#scheduled = undefined;
      this.flush();
    });
  }
}
