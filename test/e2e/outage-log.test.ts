// What the log says of a Manager outage under load, through the built command: the reference
// Manager is stopped for 10 s while clients keep sending requests, then started again on its
// port. The outage is one warn line when it begins (the gRPC code and reason) and one when it
// ends, whatever the number of requests that failed meanwhile; no line carries a stack, and
// nothing is logged at error.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const OUTAGE_MS = 10_000;
/** Clients sending requests one after another, each as soon as its last was answered. */
const CLIENTS = 4;

let dataDir: string;
let manager: RunningManager | undefined;
let gateway: StartedCommand | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "outage-manager-"));
});

afterAll(async () => {
  await gateway?.stop();
  await manager?.close();
  await rm(dataDir, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

function parsed(lines: readonly string[]): Line[] {
  return lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Line);
}

/** Keeps `CLIENTS` clients busy with reads of a job until `stop` resolves; the statuses they got, in order. */
async function load(url: string, stop: Promise<void>): Promise<number[]> {
  const statuses: number[] = [];
  let stopped = false;
  void stop.then(() => { stopped = true; });
  const client = async (index: number): Promise<void> => {
    while (!stopped) {
      const res = await fetch(`${url}/v1/jobs/outage-${String(index)}`);
      await res.arrayBuffer();
      statuses.push(res.status);
      // A breath between requests, so that the test does not starve the other helpers' cores.
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
  return statuses;
}

describe("a 10-second Manager outage under load", () => {
  it("is logged as one warn line when it begins and one when it ends, without stacks or error lines", async () => {
    manager = await startManager({ port: 0, dataDir });
    const { address } = manager;
    const port = Number(address.split(":").at(-1));
    gateway = await startCommand(["--manager", address]);
    const { url } = gateway;

    let endLoad = (): void => undefined;
    const loading = load(url, new Promise<void>((resolve) => { endLoad = resolve; }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    await manager.close();
    manager = undefined;
    await new Promise((resolve) => setTimeout(resolve, OUTAGE_MS));
    manager = await startManager({ port, dataDir });
    await expect.poll(async () => (await fetch(`${url}/readyz`)).status, { timeout: 20_000, interval: 250 }).toBe(200);
    // Requests answered by the Manager again (a 404: no such job), not only the probe.
    const afterwards = await fetch(`${url}/v1/jobs/outage-after`);
    expect(afterwards.status).toBe(404);
    endLoad();
    const statuses = await loading;
    const command = gateway;
    gateway = undefined;
    expect(await command.stop()).toBe(0);

    // The load was real: many requests failed during the outage, and some were answered around it.
    expect(statuses.filter((status) => status === 503).length).toBeGreaterThan(50);
    expect(statuses).toContain(404);
    const lines = parsed(command.lines);
    const warnings = lines.filter((line) => line.level === 40);
    expect(warnings.map((line) => line.msg)).toEqual(["the Manager cannot be reached", "the Manager is serving again"]);
    expect(warnings[0]).toMatchObject({ manager: address, code: "UNAVAILABLE" });
    expect(warnings[0]?.reason).toBeTypeOf("string");
    expect(lines.filter((line) => (line.level as number) >= 50)).toEqual([]);
    expect(command.lines.join("\n")).not.toContain('"stack"');
    // Besides the access lines (one per request), the log is a handful of lines: start, the
    // Manager serving, the two above, shutdown.
    expect(lines.filter((line) => line.msg !== "request").length).toBeLessThan(12);
  }, 60_000);
});
