// The container codecs on their own: lists, maps of every key type proto3 allows, flattened
// wrappers. The messages of manager.proto have string-keyed maps only; the other key types are
// the codec's contract all the same (proto3 JSON writes every map key as a string).
import { ScalarType, create } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { HostPortRangeSchema, JobIdSchema, OciMetadataSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { listCodec, mapCodec, wrapperCodec } from "../../src/json/containers.js";
import { INVALID, Issues, UnrepresentableError } from "../../src/json/errors.js";
import { scalarCodec } from "../../src/json/scalars.js";
import { timestampCodec } from "../../src/json/timestamp.js";

const text = scalarCodec(ScalarType.STRING, false);

/** What `codec.in` makes of `json` at /m: its value and the issues it recorded. */
function read(codec: ReturnType<typeof mapCodec>, json: unknown): { value: unknown; issues: Issues["list"] } {
  const issues = new Issues();
  const value = codec.in(json, "/m", issues);
  return { value, issues: issues.list };
}

describe("map keys, by key type", () => {
  const cases: readonly [string, ScalarType, readonly string[], readonly string[], string][] = [
    ["bool", ScalarType.BOOL, ["true", "false"], ["True", "1", "", "yes"], 'must be "true" or "false"'],
    ["int32", ScalarType.INT32, ["0", "1", "10", "123", "-5", "-2147483648", "2147483647"], ["2147483648", "-2147483649"], "must be a decimal integer between -2147483648 and 2147483647"],
    ["sint32", ScalarType.SINT32, ["-2147483648"], ["-2147483649"], "must be a decimal integer between -2147483648 and 2147483647"],
    ["sfixed32", ScalarType.SFIXED32, ["2147483647"], ["2147483648"], "must be a decimal integer between -2147483648 and 2147483647"],
    ["uint32", ScalarType.UINT32, ["0", "4294967295"], ["-1", "4294967296"], "must be a decimal integer between 0 and 4294967295"],
    ["fixed32", ScalarType.FIXED32, ["0", "4294967295"], ["-1", "4294967296"], "must be a decimal integer between 0 and 4294967295"],
  ];

  it.each(cases)("%s: accepts %j, refuses %j with the key's rule", (_name, keyType, good, bad, rule) => {
    const codec = mapCodec(keyType, text);
    for (const key of good) expect(read(codec, { [key]: "v" })).toEqual({ value: { [key]: "v" }, issues: [] });
    for (const key of bad) {
      expect(read(codec, { [key]: "v" })).toEqual({ value: INVALID, issues: [{ pointer: `/m/${key}`, message: `the key ${rule}` }] });
    }
  });

  it.each([" 1", "1 ", "01", "+1", "1.0", "1e3", "-0", "0x10", "", "1_000"])(
    "int32 keys: refuses %j, which Number() would read, since the key is the integer's decimal spelling only",
    (key) => {
      expect(read(mapCodec(ScalarType.INT32, text), { [key]: "v" }).issues).toEqual([
        { pointer: `/m/${key}`, message: "the key must be a decimal integer between -2147483648 and 2147483647" },
      ]);
    },
  );

  it.each([
    ["int64", ScalarType.INT64, "-9223372036854775808", "9223372036854775808"],
    ["sint64", ScalarType.SINT64, "-1", "01"],
    ["sfixed64", ScalarType.SFIXED64, "-1", "-9223372036854775809"],
    ["uint64", ScalarType.UINT64, "18446744073709551615", "-1"],
    ["fixed64", ScalarType.FIXED64, "0", "-1"],
  ])("%s: accepts %j and refuses %j as its scalar rule says", (_name, keyType, good, bad) => {
    const codec = mapCodec(keyType, text);
    expect(read(codec, { [good]: "v" })).toEqual({ value: { [good]: "v" }, issues: [] });
    const refused = read(codec, { [bad]: "v" });
    expect(refused.value).toBe(INVALID);
    expect(refused.issues).toHaveLength(1);
    const signed = keyType === ScalarType.INT64 || keyType === ScalarType.SINT64 || keyType === ScalarType.SFIXED64;
    expect(refused.issues[0]?.message).toMatch(signed ? /^the key must be a decimal string of an int64 / : /^the key must be a decimal string of an uint64 /);
  });

  it("refuses a string key with a lone surrogate, naming the key's pointer", () => {
    expect(read(mapCodec(ScalarType.STRING, text), { "a\uD800": "v", b: "w" })).toEqual({
      value: INVALID,
      issues: [{ pointer: "/m/a\uD800", message: "the key must be valid Unicode (it contains a lone surrogate \\uD800-\\uDFFF)" }],
    });
  });
});

describe("map values and shapes", () => {
  it("refuses a value that is not an object, saying what it was", () => {
    expect(read(mapCodec(ScalarType.STRING, text), ["a"])).toEqual({ value: INVALID, issues: [{ pointer: "/m", message: "must be an object, not an array" }] });
  });

  it("refuses null and undefined values: a map has no absent entries", () => {
    expect(read(mapCodec(ScalarType.STRING, text), { a: null, b: undefined, c: "ok" })).toEqual({
      value: INVALID,
      issues: [
        { pointer: "/m/a", message: "must not be null" },
        { pointer: "/m/b", message: "must not be null" },
      ],
    });
  });

  it("is INVALID when any one value is, though the others read", () => {
    expect(read(mapCodec(ScalarType.STRING, text), { a: "ok", b: 5 }).value).toBe(INVALID);
  });

  it("names the key of a value that cannot be written", () => {
    const bad = create(TimestampSchema, { seconds: -62135596801n });
    const codec = mapCodec(ScalarType.STRING, timestampCodec);
    try {
      codec.out({ ok: create(TimestampSchema), "x/y": bad });
      expect.fail("expected an UnrepresentableError");
    } catch (error) {
      expect(error).toBeInstanceOf(UnrepresentableError);
      expect((error as UnrepresentableError).errors.map((e) => e.pointer)).toEqual(["/x~1y"]);
    }
  });
});

describe("lists", () => {
  it("is INVALID when any one element is, though the others read", () => {
    const issues = new Issues();
    expect(listCodec(text).in(["a", 1, "c"], "/l", issues)).toBe(INVALID);
    expect(issues.list).toEqual([{ pointer: "/l/1", message: expect.stringMatching(/^must be a string/) as unknown }]);
  });

  it("writes every element, in order, and names the index of one that cannot be written", () => {
    const codec = listCodec(timestampCodec);
    expect(codec.out([create(TimestampSchema), create(TimestampSchema, { seconds: 1n })])).toEqual(["1970-01-01T00:00:00Z", "1970-01-01T00:00:01Z"]);
    const bad = create(TimestampSchema, { seconds: 253402300800n });
    try {
      codec.out([create(TimestampSchema), bad]);
      expect.fail("expected an UnrepresentableError");
    } catch (error) {
      expect(error).toBeInstanceOf(UnrepresentableError);
      expect((error as UnrepresentableError).errors.map((e) => e.pointer)).toEqual(["/1"]);
    }
  });
});

describe("wrapperCodec", () => {
  it("refuses to flatten a message that is not one scalar field", () => {
    expect(() => wrapperCodec(JobSchema)).toThrow("norsk.api.manager.Job cannot be flattened: it must have exactly one scalar field");
    expect(() => wrapperCodec(HostPortRangeSchema)).toThrow("norsk.api.common.HostPortRange cannot be flattened: it must have exactly one scalar field");
    expect(() => wrapperCodec(OciMetadataSchema)).toThrow("norsk.api.common.OciMetadata cannot be flattened: it must have exactly one scalar field");
  });

  it("reads its scalar into a new message, and is INVALID when the scalar is", () => {
    const codec = wrapperCodec(JobIdSchema);
    expect(codec.in("j-1", "/jobId", new Issues())).toEqual(create(JobIdSchema, { jobId: "j-1" }));
    const issues = new Issues();
    expect(codec.in(5, "/jobId", issues)).toBe(INVALID);
    expect(issues.list.map((i) => i.pointer)).toEqual(["/jobId"]);
  });
});
