// startManager(): options, address, stats, close.
import { describe, expect, it } from "vitest";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code, createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import { MANAGER_DEFAULTS, startManager } from "../src/index.js";
import { grpcErrorOf, removeDir, simpleJob, tempDataDir } from "./harness.js";

/** Whether this machine can listen on the IPv6 loopback at all; the IPv6 test needs it. */
async function canListenOn(host: string): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once("error", () => {
      resolve(false);
    });
    server.listen(0, host, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

const IPV6_LOOPBACK = await canListenOn("::1");

describe("startManager", () => {
  it("documents its defaults: port 6790, host 127.0.0.1, data dir ./data", () => {
    expect(MANAGER_DEFAULTS).toMatchObject({ port: 6790, host: "127.0.0.1", dataDir: "./data" });
  });

  it("listens on a free port for port 0, answers host:port, and creates the data dir", async () => {
    const dir = join(tempDataDir(), "created");
    const manager = await startManager({ port: 0, dataDir: dir });
    try {
      expect(manager.port).toBeGreaterThan(0);
      expect(manager.address).toBe(`127.0.0.1:${manager.port}`);
      expect(existsSync(join(dir, "manager.sqlite"))).toBe(true);
      expect(manager.stats()).toEqual({ openEventStreams: 0, openStatusChannels: 0, eventSubscribers: 0 });
    } finally {
      await manager.close();
      removeDir(join(dir, ".."));
    }
  });

  it.skipIf(!IPV6_LOOPBACK)(`brackets an IPv6 host in its address${IPV6_LOOPBACK ? "" : " (skipped: this machine cannot listen on ::1)"}`, async () => {
    const manager = await startManager({ port: 0, host: "::1", dataDir: ":memory:" });
    try {
      expect(manager.address).toBe(`[::1]:${manager.port}`);
      const channel = createChannel(manager.address);
      await createClient(Manager, channel).createJob(simpleJob("v6"));
      channel.close();
    } finally {
      await manager.close();
    }
  });

  it.each([[-1], [65536], [1.5], [Number.NaN]])("rejects port %s", async (port) => {
    await expect(startManager({ port, dataDir: ":memory:" })).rejects.toThrow(RangeError);
  });

  it("rejects when the port is taken, leaving the data dir closed", async () => {
    const first = await startManager({ port: 0, dataDir: ":memory:" });
    const dir = tempDataDir();
    try {
      await expect(startManager({ port: first.port, dataDir: dir })).rejects.toThrow();
      // The database was closed: it can be opened again at once.
      const again = await startManager({ port: 0, dataDir: dir });
      await again.close();
    } finally {
      await first.close();
      removeDir(dir);
    }
  });

  it("closes idempotently, after which the port refuses calls", async () => {
    const manager = await startManager({ port: 0, dataDir: ":memory:" });
    const channel = createChannel(manager.address);
    const client = createClient(Manager, channel, { defaultTimeoutMs: 2_000 });
    await client.createJob(simpleJob("before"));
    await Promise.all([manager.close(), manager.close()]);
    await manager.close();
    expect((await grpcErrorOf(client.createJob(simpleJob("after")))).code).toBe(Code.UNAVAILABLE);
    channel.close();
  });

  it("keeps every write it answered with success when closed during a burst of calls", async () => {
    const dir = tempDataDir();
    const manager = await startManager({ port: 0, dataDir: dir });
    const channel = createChannel(manager.address);
    const client = createClient(Manager, channel);
    await client.createJob(simpleJob("first"));
    const calls = Array.from({ length: 20 }, (_, i) => client.createJob(simpleJob(`burst-${i}`)));
    const closing = manager.close();
    const results = await Promise.allSettled(calls);
    await closing;
    channel.close();
    const reopened = await startManager({ port: 0, dataDir: dir });
    const check = createChannel(reopened.address);
    const ids: string[] = [];
    for await (const current of createClient(Manager, check).jobSearch({})) ids.push(current.job?.jobId?.jobId ?? "");
    check.close();
    await reopened.close();
    removeDir(dir);
    // Every call answered with success is in the store; the others were refused whole.
    const succeeded = results.flatMap((r, i) => (r.status === "fulfilled" ? [`burst-${i}`] : []));
    expect(ids).toEqual(["first", ...succeeded].sort());
    for (const r of results) if (r.status === "rejected") expect(r.reason).toMatchObject({ code: Code.UNAVAILABLE });
  });
});
