// --workers auto (src/cluster.ts, workerCount): one worker per CPU this process may use, the
// CPUs node may run on bounded by the cgroup v2 quota (cpu.max) of its cgroup and those above
// it. The cgroup files are fixtures (test/fixtures/cgroup/), read where /sys/fs/cgroup would be.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { cpuQuotaCpus, parseCpuMax, workerCount } from "../src/cluster.js";

const FIXTURES = new URL("./fixtures/cgroup/", import.meta.url).pathname;

/** Reads the fixture tree `tree` in place of /sys/fs/cgroup, with `cgroup` as /proc/self/cgroup. */
function reader(tree: string, cgroup: string): (path: string) => string {
  return (path) => {
    if (path === "/proc/self/cgroup") return cgroup;
    if (!path.startsWith("/sys/fs/cgroup")) throw new Error(`unexpected read of ${path}`);
    return readFileSync(`${FIXTURES}${tree}${path.slice("/sys/fs/cgroup".length)}`, "utf8");
  };
}

describe("parseCpuMax", () => {
  it("reads a quota over its period as CPUs, rounded up, at least 1", () => {
    expect(parseCpuMax("200000 100000\n")).toBe(2);
    expect(parseCpuMax("150000 100000")).toBe(2);
    expect(parseCpuMax("50000 100000")).toBe(1);
    expect(parseCpuMax("1 100000")).toBe(1);
    expect(parseCpuMax("400000")).toBe(4);
  });

  it('takes "max" as no limit, and a text it cannot read as none', () => {
    expect(parseCpuMax("max 100000\n")).toBeUndefined();
    expect(parseCpuMax("max")).toBeUndefined();
    expect(parseCpuMax("")).toBeUndefined();
    expect(parseCpuMax("two 100000")).toBeUndefined();
    expect(parseCpuMax("0 100000")).toBeUndefined();
  });
});

describe("cpuQuotaCpus", () => {
  it("takes the least quota of the process's cgroup and those above it", () => {
    expect(cpuQuotaCpus(reader("limited", "0::/kubepods/pod1\n"))).toBe(2);
    // The pod's parent has no limit ("max"): its child's limit still applies.
    expect(cpuQuotaCpus(reader("limited", "0::/kubepods\n"))).toBeUndefined();
  });

  it("finds no quota where every cpu.max is max, none exists, or there is no cgroup v2", () => {
    expect(cpuQuotaCpus(reader("unlimited", "0::/\n"))).toBeUndefined();
    expect(cpuQuotaCpus(reader("unlimited", "0::/not/there\n"))).toBeUndefined();
    expect(cpuQuotaCpus(reader("limited", "4:memory:/x\n1:cpu:/\n"))).toBeUndefined();
    expect(cpuQuotaCpus(() => { throw new Error("ENOENT"); })).toBeUndefined();
  });
});

describe("workerCount", () => {
  it("is the number given", () => {
    expect(workerCount("1")).toBe(1);
    expect(workerCount("3", { parallelism: () => 2 })).toBe(3);
  });

  it("auto: one per CPU node may run on, bounded by the cgroup's quota", () => {
    expect(workerCount("auto", { parallelism: () => 8, read: reader("limited", "0::/kubepods/pod1\n") })).toBe(2);
    expect(workerCount("auto", { parallelism: () => 1, read: reader("limited", "0::/kubepods/pod1\n") })).toBe(1);
    expect(workerCount("auto", { parallelism: () => 8, read: reader("unlimited", "0::/\n") })).toBe(8);
    expect(workerCount("auto", { parallelism: () => 6, read: () => { throw new Error("ENOENT"); } })).toBe(6);
  });
});
