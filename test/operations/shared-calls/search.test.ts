// One JobSearch stream read by several readers (src/operations/shared-calls/search.ts): each gets
// every job in order at its own pace, the fastest waits when it is far ahead, and the stream is
// cancelled only when the last reader leaves before its end.
import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { SharedSearch } from "../../../src/operations/shared-calls/search.js";
import type { StartedSearch } from "../../../src/operations/search-body.js";

const job = (i: number): CurrentJob => create(CurrentJobSchema, { job: { jobId: { jobId: `job-${String(i).padStart(4, "0")}` } } });

/** A search of `count` jobs; `pulled` counts the jobs read from it, `returned` whether it was cancelled. */
async function source(count: number, failAt?: number) {
  const state = { pulled: 0, returned: false };
  async function* jobs(): AsyncGenerator<CurrentJob> {
    try {
      for (let i = 0; i < count; i++) {
        if (i === failAt) throw new Error("the Manager went away");
        state.pulled++;
        await Promise.resolve();
        yield job(i);
      }
    } finally {
      state.returned = state.pulled < count;
    }
  }
  const iterator = jobs();
  const started: StartedSearch = { first: await iterator.next(), jobs: iterator };
  return { started, state };
}

async function readAll(search: StartedSearch): Promise<string[]> {
  const ids: string[] = [];
  if (search.first.done !== true) ids.push(search.first.value.job?.jobId?.jobId ?? "");
  for (;;) {
    const next = await search.jobs.next();
    if (next.done === true) return ids;
    ids.push(next.value.job?.jobId?.jobId ?? "");
  }
}

const ids = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `job-${String(from + i).padStart(4, "0")}`);

describe("SharedSearch", () => {
  it("gives each reader every job in order, reading the Manager's stream once", async () => {
    const { started, state } = await source(1_000);
    const shared = new SharedSearch(started);
    const readers = [shared.reader(), shared.reader(), shared.reader()];
    const lists = await Promise.all(readers.map(readAll));
    for (const list of lists) expect(list).toEqual(ids(0, 1_000));
    expect(state.pulled).toBe(1_000);
    expect(shared.readers).toBe(0);
  });

  it("holds the fastest reader 512 jobs ahead of the slowest, and lets it on when the slowest moves", async () => {
    const { started } = await source(2_000);
    const shared = new SharedSearch(started);
    const fast = shared.reader();
    const slow = shared.reader();
    for (let i = 1; i <= 512; i++) expect((await fast.jobs.next()).done).toBe(false);
    let moved = false;
    const pending = fast.jobs.next().then((next) => {
      moved = true;
      return next;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(moved).toBe(false);
    await slow.jobs.next(); // the slowest takes job 1: there is room for one more
    const next = await pending;
    expect(next.done === true ? "" : next.value.job?.jobId?.jobId).toBe("job-0513");
  });

  it("cancels the Manager's stream when the last reader leaves before the end, not before", async () => {
    const { started, state } = await source(100);
    const shared = new SharedSearch(started);
    const one = shared.reader();
    const two = shared.reader();
    await one.jobs.next();
    await one.jobs.return?.();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(state.returned).toBe(false);
    expect(await readAll(two)).toEqual(ids(0, 100));
    expect(state.returned).toBe(false);

    const again = await source(100);
    const lone = new SharedSearch(again.started);
    const left = lone.reader();
    await left.jobs.next();
    await left.jobs.return?.();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(again.state.returned).toBe(true);
  });

  it("takes out a reader whose signal aborts, so that it holds nobody back", async () => {
    const { started } = await source(1_000);
    const shared = new SharedSearch(started);
    const controller = new AbortController();
    shared.reader(controller.signal); // never reads
    const reading = shared.reader();
    for (let i = 1; i <= 512; i++) await reading.jobs.next();
    controller.abort();
    expect(shared.readers).toBe(1);
    const rest = await readAll({ first: { done: true, value: undefined }, jobs: reading.jobs });
    expect(rest).toEqual(ids(513, 1_000));
  });

  it("gives every reader the stream's failure where it happened", async () => {
    const { started } = await source(10, 6);
    const shared = new SharedSearch(started);
    for (const reader of [shared.reader(), shared.reader()]) {
      const seen: string[] = [];
      await expect(
        (async () => {
          for (;;) {
            const next = await reader.jobs.next();
            if (next.done === true) return;
            seen.push(next.value.job?.jobId?.jobId ?? "");
          }
        })(),
      ).rejects.toThrow("the Manager went away");
      expect(seen).toEqual(ids(1, 6));
    }
  });

  it("ends at once for readers of an empty search", async () => {
    const { started } = await source(0);
    const shared = new SharedSearch(started);
    expect(await readAll(shared.reader())).toEqual([]);
  });
});
