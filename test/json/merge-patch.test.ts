import { equals, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { JobFilterSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { applyMergePatch, mergePatchMessage } from "../../src/json/merge-patch.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { MirrorError } from "../../src/json/errors.js";
import { jobBody } from "./helpers.js";

// RFC 7396, Appendix A.
const RFC_EXAMPLES: readonly [unknown, unknown, unknown][] = [
  [{ a: "b" }, { a: "c" }, { a: "c" }],
  [{ a: "b" }, { b: "c" }, { a: "b", b: "c" }],
  [{ a: "b" }, { a: null }, {}],
  [{ a: "b", b: "c" }, { a: null }, { b: "c" }],
  [{ a: ["b"] }, { a: "c" }, { a: "c" }],
  [{ a: "c" }, { a: ["b"] }, { a: ["b"] }],
  [{ a: { b: "c" } }, { a: { b: "d", c: null } }, { a: { b: "d" } }],
  [{ a: [{ b: "c" }] }, { a: [1] }, { a: [1] }],
  [["a", "b"], ["c", "d"], ["c", "d"]],
  [{ a: "b" }, ["c"], ["c"]],
  [{ a: "foo" }, null, null],
  [{ a: "foo" }, "bar", "bar"],
  [{ e: null }, { a: 1 }, { e: null, a: 1 }],
  [[1, 2], { a: "b", c: null }, { a: "b" }],
  [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
];

describe("applyMergePatch", () => {
  it.each(RFC_EXAMPLES)("patches %j with %j into %j", (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it("leaves its inputs unchanged", () => {
    const target = { a: { b: 1 } };
    const patch = { a: { c: 2 } };
    applyMergePatch(target, patch);
    expect(target).toEqual({ a: { b: 1 } });
    expect(patch).toEqual({ a: { c: 2 } });
  });

  it("keeps the target's members in their order, patched ones in place, new ones after", () => {
    const result = applyMergePatch({ a: 1, b: 2, c: 3 }, { b: 20, d: 4, a: null });
    expect(Object.keys(result as object)).toEqual(["b", "c", "d"]);
    expect(JSON.stringify(applyMergePatch({ a: 1, b: 2 }, { a: 10 }))).toBe('{"a":10,"b":2}');
  });

  it("gives ordinary members, which a caller can change and delete, as JSON.parse does", () => {
    const result = applyMergePatch({ a: 1 }, { a: 2, b: 3 }) as Record<string, unknown>;
    for (const key of ["a", "b"]) {
      expect(Object.getOwnPropertyDescriptor(result, key)).toEqual({ value: result[key], enumerable: true, writable: true, configurable: true });
    }
    result.a = 5;
    expect(Reflect.deleteProperty(result, "b")).toBe(true);
    expect(result).toEqual({ a: 5 });
  });

  it("treats a __proto__ key as data, never as a prototype", () => {
    const patch: unknown = JSON.parse('{"tags": {"__proto__": {"polluted": "yes"}}}');
    const result = applyMergePatch({ tags: {} }, patch) as { tags: Record<string, unknown> };
    expect(Object.keys(result.tags)).toEqual(["__proto__"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result.tags)).toBe(Object.prototype);
  });
});

describe("mergePatchMessage", () => {
  /** A job as read from a newer Manager: field 99 is unknown here. */
  function jobFromNewerManager() {
    const known = toBinary(JobSchema, messageFromJson(JobSchema, jobBody({ description: "old", tags: { a: "1", b: "2" } })));
    const unknown = new Uint8Array([0x9a, 0x06, 0x03, 0x6e, 0x65, 0x77]); // field 99, "new"
    return fromBinary(JobSchema, new Uint8Array([...known, ...unknown]));
  }

  it("recomputes the fields the patch names, merging objects key by key", () => {
    const read = jobFromNewerManager();
    const next = mergePatchMessage(JobSchema, read, { description: "new", tags: { a: null, c: "3" } });
    expect(messageToJson(JobSchema, next)).toMatchObject({ description: "new", tags: { b: "2", c: "3" } });
  });

  it("keeps every other field and the unknown fields exactly as read, and leaves the input alone", () => {
    const read = jobFromNewerManager();
    const before = toBinary(JobSchema, read);
    const next = mergePatchMessage(JobSchema, read, { description: "new" });
    expect(toBinary(JobSchema, read)).toEqual(before);
    expect(next.$unknown).toEqual(read.$unknown);
    expect(equals(JobSchema, mergePatchMessage(JobSchema, read, { description: "old" }), read)).toBe(true);
    expect(toBinary(JobSchema, mergePatchMessage(JobSchema, read, {}))).toEqual(before);
  });

  it("resets a field the patch removes with null", () => {
    const next = mergePatchMessage(JobSchema, jobFromNewerManager(), { description: null });
    expect(next.description).toBe("");
  });

  it("unsets a message field and an optional field the patch removes with null, rather than setting them empty", () => {
    const read = messageFromJson(JobSchema, jobBody({ norskServiceParameters: { cpuSet: [1] }, launchConfigJson: "{}" }));
    const next = mergePatchMessage(JobSchema, read, { norskServiceParameters: null, launchConfigJson: null });
    expect(next.norskServiceParameters).toBeUndefined();
    expect(next.launchConfigJson).toBeUndefined();
    expect(messageToJson(JobSchema, next)).not.toHaveProperty("launchConfigJson");
  });

  it("treats a oneof member as its whole oneof", () => {
    const byId = messageFromJson(JobFilterSchema, { idFilter: { eq: "a" } });
    const byTag = mergePatchMessage(JobFilterSchema, byId, { idFilter: null, tagFilter: { tagName: "t", exists: true } });
    expect(byTag.jobFilter.case).toBe("tagFilter");
    expect(mergePatchMessage(JobFilterSchema, byTag, { tagFilter: null }).jobFilter.case).toBeUndefined();
  });

  it("refuses a second member of a oneof that the patch sets without removing the first, as the merged JSON would", () => {
    const byId = messageFromJson(JobFilterSchema, { idFilter: { eq: "a" } });
    expect(() => mergePatchMessage(JobFilterSchema, byId, { tagFilter: { tagName: "t", exists: true } })).toThrow(MirrorError);
    expect(() => messageFromJson(JobFilterSchema, applyMergePatch(messageToJson(JobFilterSchema, byId), { tagFilter: { tagName: "t", exists: true } }))).toThrow(MirrorError);
  });

  it("refuses a property that is no field of the message, naming it", () => {
    expect(() => mergePatchMessage(JobSchema, jobFromNewerManager(), { colour: "red" })).toThrow(/colour/);
  });

  it("throws a MirrorError when the patched JSON is not a valid message", () => {
    expect(() => mergePatchMessage(JobSchema, jobFromNewerManager(), { description: 7 })).toThrow(MirrorError);
  });
});
