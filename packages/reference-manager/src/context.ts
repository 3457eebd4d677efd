// What every handler of the reference Manager shares, and the one way it writes: apply the
// change inside the current batch (src/commits.ts); the service replies after the
// batch commits, and the change's events are published then, in commit order. Handlers never
// await between reading the state they validate and applying their write, so a check and the
// write it guards are atomic (Node runs one handler turn at a time).
import { timestampNow } from "@bufbuild/protobuf/wkt";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { ChangeDescription, GroupCommit } from "./commits.js";
import type { EventBus } from "./events.js";
import type { Scanner } from "./scanner.js";
import type { Store } from "./store.js";

export interface ManagerContext {
  readonly store: Store;
  readonly bus: EventBus;
  readonly commits: GroupCommit;
  /** Runs job searches with a regular expression off the event loop. */
  readonly scanner: Scanner;
  /** The time written into history entries and node metadata. */
  readonly now: () => Timestamp;
}

export function defaultClock(): Timestamp {
  return timestampNow();
}

/**
 * Applies `write` (all or nothing) in the current batch and queues what `describe` says
 * changed; `describe` runs at once, and only when someone subscribes. Returns what `write`
 * returned. When `write` throws, nothing is written or published.
 */
export function commit<R>(context: ManagerContext, write: () => R, describe: (result: R) => ChangeDescription): R {
  return context.commits.apply(write, describe);
}
