// The command line of src/main.ts (`npm run manager`).
import { afterAll, describe, it } from "vitest";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import { runManager } from "./process.js";
import { removeDir, simpleJob, tempDataDir } from "./harness.js";

const dataDir = tempDataDir();

afterAll(() => {
  removeDir(dataDir);
});

// Each test runs its own process; they run concurrently to keep the file quick.
describe.concurrent("npm run manager", () => {
  it("prints usage with --help and exits 0", async ({ expect }) => {
    const run = runManager(["--help"]);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.lines.join("\n")).toMatch(/--port <n>[\s\S]*--host <address>[\s\S]*--data-dir <dir>/);
  });

  it.for<[string[], string]>([
    [["--port", "http"], "--port"],
    [["--port", "70000"], "--port"],
    [["--port", "-1"], "--port"],
    [["--data-dir", ""], "--data-dir"],
    [["--frobnicate"], "--frobnicate"],
  ])("rejects %j with exit code 2 and one line naming %s", async ([args, flag], { expect }) => {
    const run = runManager(args);
    expect((await run.exited).code).toBe(2);
    expect(run.lines).toHaveLength(1);
    expect(run.lines[0]).toContain(flag);
  });

  it.for<[string, string]>([
    ["a path under a regular file", "ENOTDIR"],
    ["a regular file where the dir should be", "EEXIST"],
  ])("exits 2 with one line naming the data dir and why when it is %s", async ([, code], { expect }) => {
    // Real failures even for root: a regular file stands where a directory must be.
    const file = join(dataDir, `not-a-dir-${code}`);
    writeFileSync(file, "");
    const dir = code === "ENOTDIR" ? join(file, "data") : file;
    const run = runManager(["--port", "0", "--data-dir", dir]);
    expect((await run.exited).code).toBe(2);
    expect(run.lines).toEqual([`norsk-manager: cannot use the data dir ${dir}: ${code}: ${code === "ENOTDIR" ? "not a directory" : "file already exists"}`]);
  });

  it("serves on the given port and data dir, logs one line, and exits 0 on SIGTERM", async ({ expect }) => {
    const run = runManager(["--port", "0", "--host", "127.0.0.1", "--data-dir", dataDir]);
    const address = await run.listening();
    expect(run.lines).toEqual([expect.stringMatching(/^reference Manager listening on 127\.0\.0\.1:\d+ \(plaintext; data: .+\)$/)]);
    const channel = createChannel(address);
    const { hash } = await createClient(Manager, channel).createJob(simpleJob("cli-1"));
    expect(typeof hash).toBe("bigint");
    channel.close();
    run.child.kill("SIGTERM");
    expect(await run.exited).toEqual({ code: 0, signal: null });
  });
});
