// The reference Manager's packed artifact, as an operator installs it: `npm pack --workspace
// norsk-reference-manager` gives one tarball, the contract it imports bundled in, which
// installs alone into an empty folder with `npm install --omit=dev` (better-sqlite3 built by
// its install script, so with a compiler where no prebuilt binary can be fetched) and runs as
// `norsk-reference-manager`; and installed with the gateway's tarball in one `npm install`, the
// gateway without --manager runs it embedded. Each folder's install builds better-sqlite3 once.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { JobSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import { startCommand, startProcess } from "../helpers/command.js";
import { copiesOf, filesEndingWith, installPacked, pack } from "../helpers/packed.js";
import type { Packed } from "../helpers/packed.js";

/** A build of better-sqlite3 from source takes a minute or more on a busy machine. */
const INSTALL_TIMEOUT_MS = 600_000;

let tarballs: string;
let manager: Packed;
let gateway: Packed;

beforeAll(async () => {
  tarballs = await mkdtemp(join(tmpdir(), "packed-tarballs-"));
  manager = await pack(tarballs, "norsk-reference-manager");
  gateway = await pack(tarballs);
});

afterAll(async () => {
  await rm(tarballs, { recursive: true, force: true });
});

describe("the packed reference Manager, installed alone", () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "manager-pack-"));
    await installPacked(folder, [manager.tarball], ["--omit=dev"]);
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("bundles the contract, and installs neither the gateway nor dev dependencies; better-sqlite3's addon is its one native module", async () => {
    expect(manager.bundled).toEqual(["norsk-manager-contract"]);
    expect(manager.files.filter((path) => path.startsWith("node_modules/") && !/^node_modules\/norsk-manager-contract\/(package\.json$|dist\/|proto\/)/.test(path))).toEqual([]);
    expect(await copiesOf(folder, "norsk-manager-contract")).toEqual(["norsk-reference-manager/node_modules/norsk-manager-contract"]);
    expect(await copiesOf(folder, "@bufbuild/protobuf")).toEqual(["@bufbuild/protobuf"]);
    for (const absent of ["norsk-manager-gateway", "fastify", "typescript", "tsx"]) expect(existsSync(join(folder, "node_modules", absent)), absent).toBe(false);
    const addons = await filesEndingWith(join(folder, "node_modules"), ".node");
    expect(addons).toContain("better-sqlite3/build/Release/better_sqlite3.node");
    expect(addons.filter((path) => !path.startsWith("better-sqlite3/"))).toEqual([]);
  });

  it("runs as its linked command, keeps a job created over gRPC in SQLite on disk, and stops with 0 on SIGTERM", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "manager-pack-data-"));
    const command = join(folder, "node_modules", ".bin", "norsk-reference-manager");
    const started = await startProcess([command, "--port", "0", "--data-dir", dataDir], { cwd: folder, listening: /listening on (\S+)/ });
    const channel = createChannel(started.url);
    try {
      const client = createClient(Manager, channel);
      const startDateTime = timestampFromDate(new Date("2026-12-24T18:00:00Z"));
      const { hash } = await client.createJob(create(JobSchema, { jobId: { jobId: "packed-manager-1" }, startDateTime }));
      const found = [];
      for await (const current of client.jobSearch({})) found.push(current);
      expect(found.map((current) => [current.job?.jobId?.jobId, current.job?.currentHash])).toEqual([["packed-manager-1", hash]]);
    } finally {
      channel.close();
      expect(await started.stop()).toBe(0);
    }
    expect(existsSync(join(dataDir, "manager.sqlite"))).toBe(true);
    await rm(dataDir, { recursive: true, force: true });
  });
});

describe("the packed gateway and reference Manager, installed together", () => {
  let folder: string;

  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "embedded-pack-"));
    await installPacked(folder, [gateway.tarball, manager.tarball], ["--omit=dev"]);
  }, INSTALL_TIMEOUT_MS);

  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("share one copy of @bufbuild/protobuf and of @grpc/grpc-js, each package with its own bundled contract", async () => {
    expect(await copiesOf(folder, "@bufbuild/protobuf")).toEqual(["@bufbuild/protobuf"]);
    expect(await copiesOf(folder, "@grpc/grpc-js")).toEqual(["@grpc/grpc-js"]);
    expect(await copiesOf(folder, "norsk-manager-contract")).toEqual(["norsk-manager-gateway/node_modules/norsk-manager-contract", "norsk-reference-manager/node_modules/norsk-manager-contract"]);
  });

  it("serve jobs from the embedded Manager when the gateway is started without --manager", async () => {
    const started = await startCommand([], { entry: join(folder, "node_modules", ".bin", "norsk-manager-gateway") });
    try {
      expect(started.lines.join("\n")).toContain("(Manager: embedded;");
      const created = await fetch(`${started.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: "packed-embedded-1", startDateTime: "2026-12-24T18:00:00.123456789Z" }),
      });
      expect(created.status).toBe(201);
      const read = await fetch(`${started.url}/v1/jobs/packed-embedded-1`);
      expect(await read.json()).toMatchObject({ jobId: "packed-embedded-1", startDateTime: "2026-12-24T18:00:00.123456789Z" });
    } finally {
      expect(await started.stop()).toBe(0);
    }
  });
});
