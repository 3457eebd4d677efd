import { describe, expect, it } from "vitest";
import { clone, create, equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { Cloud, JobSchema, Job_JobState, Version } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { canonicalJobBytes, hashJob, hashOwnedJob, jobHash, withCurrentHash } from "../src/hash.js";
import { fullJob, simpleJob } from "./harness.js";
import type { JobInit } from "./harness.js";

// The hash of one fixed job, pinned: a change of the canonical form or of the hash function
// would turn every ETag a client holds stale, so it must be deliberate.
const STABLE_HASH = 1416491590781473207n;

describe("job hash", () => {
  it("is a signed 64-bit integer", () => {
    const hash = jobHash(fullJob("a"));
    expect(typeof hash).toBe("bigint");
    expect(BigInt.asIntN(64, hash)).toBe(hash);
  });

  it("is equal for equal jobs built separately", () => {
    expect(jobHash(fullJob("a"))).toBe(jobHash(fullJob("a")));
    expect(jobHash(clone(JobSchema, fullJob("a")))).toBe(jobHash(fullJob("a")));
  });

  it("does not depend on the insertion order of map entries", () => {
    const a = fullJob("a", { tags: { x: "1", y: "2", z: "3" }, productTemplateParameters: { P: "1", Q: "2" } });
    const b = fullJob("a", { tags: { z: "3", x: "1", y: "2" }, productTemplateParameters: { Q: "2", P: "1" } });
    expect(jobHash(a)).toBe(jobHash(b));
    expect(canonicalJobBytes(a)).toEqual(canonicalJobBytes(b));
  });

  it("ignores current_hash", () => {
    expect(jobHash(fullJob("a", { currentHash: 42n }))).toBe(jobHash(fullJob("a", { currentHash: -1n })));
  });

  it("does not modify the job it hashes", () => {
    const job = fullJob("a", { currentHash: 7n, tags: { b: "1", a: "2" } });
    const before = toBinary(JobSchema, job);
    hashJob(job);
    expect(toBinary(JobSchema, job)).toEqual(before);
    expect(Object.keys(job.tags)).toEqual(["b", "a"]);
  });

  it("hashes an owned job in place to the same hash and bytes, leaving it sorted and stamped", () => {
    for (const job of [fullJob("a"), fullJob("b", { tags: { z: "1", a: "2" }, currentHash: 9n }), simpleJob("c")]) {
      const expected = hashJob(job);
      const owned = clone(JobSchema, job);
      const result = hashOwnedJob(owned);
      expect(result.hash).toBe(expected.hash);
      expect(result.canonical).toEqual(expected.canonical);
      expect(owned.currentHash).toBe(expected.hash);
      expect(Object.keys(owned.tags)).toEqual(Object.keys(owned.tags).sort());
      expect(equals(JobSchema, owned, { ...job, currentHash: expected.hash })).toBe(true);
    }
  });

  it("does not depend on the order of unknown fields", () => {
    // Fields 90 = 1 and 91 = 2, unknown to this build, received in either order.
    const withUnknown = (fields: [number, number][]): Job => {
      const writer = new BinaryWriter().raw(toBinary(JobSchema, simpleJob("u")));
      for (const [no, value] of fields) writer.tag(no, WireType.Varint).uint32(value);
      return fromBinary(JobSchema, writer.finish());
    };
    const a = withUnknown([[90, 1], [91, 2]]);
    const b = withUnknown([[91, 2], [90, 1]]);
    expect(jobHash(a)).toBe(jobHash(b));
    expect(jobHash(a)).not.toBe(jobHash(simpleJob("u")));
  });

  // Each row changes one field of the full job (named as in proto/); every one must change the hash.
  const changes: [string, Partial<JobInit>][] = [
    ["job_id", { jobId: { jobId: "other" } }],
    ["description", { description: "changed" }],
    ["tags", { tags: { zone: "us", team: "media", "1": "numeric key" } }],
    ["tags", { tags: { zone: "eu", team: "media" } }],
    ["start_date_time", { startDateTime: { seconds: 1_767_225_600n, nanos: 123_456_788 } }],
    ["manager_configuration", { managerConfiguration: "{}" }],
    ["services", { services: [] }],
    ["norsk_media_version", { norskMediaVersion: Version.RECOMMENDED }],
    ["norsk_service_parameters", { norskServiceParameters: undefined }],
    ["volumes", { volumes: ["scratch", "media"] }],
    ["state", { state: Job_JobState.ACTIVE }],
    ["shape", { shape: "s" }],
    ["architecture", { architecture: "aarch_64" }],
    ["subnet", { subnet: "s" }],
    ["availabilityDomain", { availabilityDomain: "AD-2" }],
    ["cloud", { cloud: Cloud.AWS }],
    ["auto_placement", { autoPlacement: undefined }],
    ["extra_security_groups", { extraSecurityGroups: [] }],
    ["launch_config_json", { launchConfigJson: undefined }],
    ["norsk_cpu_list", { norskCpuList: [2] }],
    ["product_template", { productTemplate: { name: "live-encoder", version: "2.2" } }],
    ["product_template_parameters", { productTemplateParameters: {} }],
    ["template_launch_defaults_json", { templateLaunchDefaultsJson: undefined }],
    ["terminal_state", { terminalState: undefined }],
    ["write_files", { writeFiles: [{ path: "/etc/app.conf", contents: "a=2\n" }] }],
  ];
  it.each(changes)("changes when %s changes", (_name, change) => {
    expect(jobHash(fullJob("a", change))).not.toBe(jobHash(fullJob("a")));
  });

  it("is checked above against a change of every Job field but current_hash", () => {
    const covered = new Set(changes.map(([name]) => name));
    const fields = JobSchema.fields.map((f) => f.name).filter((name) => name !== "current_hash");
    expect([...covered].sort()).toEqual(fields.sort());
  });

  it("stores a job as its canonical bytes with current_hash set to the hash", () => {
    const { hash, canonical } = hashJob(fullJob("a", { currentHash: 5n }));
    const stored = fromBinary(JobSchema, withCurrentHash(canonical, hash));
    expect(stored.currentHash).toBe(hash);
    expect(jobHash(stored)).toBe(hash);
    expect(canonicalJobBytes(stored)).toEqual(canonical);
    expect(stored.launchConfigJson).toBe("");
  });

  it("keeps the extreme hashes exact in the stored form", () => {
    for (const hash of [-(2n ** 63n), 2n ** 63n - 1n, -1n, 0n]) {
      const stored = fromBinary(JobSchema, withCurrentHash(canonicalJobBytes(simpleJob("x")), hash));
      expect(stored.currentHash).toBe(hash);
    }
  });

  it("knows every map reachable from Job (so none can make the hash order-dependent)", () => {
    const maps: string[] = [];
    const seen = new Set<string>();
    const walk = (message: DescMessage, path: string): void => {
      if (seen.has(message.typeName)) return;
      seen.add(message.typeName);
      for (const field of message.fields) {
        if (field.fieldKind === "map") maps.push(`${path}${field.name}`);
        else if (field.fieldKind === "message" || (field.fieldKind === "list" && field.listKind === "message")) {
          walk(field.message, `${path}${field.name}.`);
        }
      }
    };
    walk(JobSchema, "");
    expect(maps.sort()).toEqual(["product_template_parameters", "tags"]);
  });

  it("is stable across releases for a fixed job (clients may hold it as an ETag)", () => {
    const job = create(JobSchema, { jobId: { jobId: "stable" }, tags: { a: "1" }, startDateTime: { seconds: 1n } });
    expect(jobHash(job)).toBe(jobHash(clone(JobSchema, job)));
    expect(jobHash(job)).toBe(STABLE_HASH);
  });
});
