import { ScalarType, create, equals, fromBinary, isMessage, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { LogSchema } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobRequirementsSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { INVALID, Issues } from "../../src/json/errors.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageFromJson, messageToJson } from "../../src/json/mirror.js";
import { scalarCodec } from "../../src/json/scalars.js";
import { issueOf, jobBody } from "./helpers.js";

const INT64_RANGE = "must be a decimal string of an int64 between -9223372036854775808 and 9223372036854775807";

describe("int64 (Job.currentHash): decimal strings, exact over the whole range", () => {
  it.each(["-9223372036854775808", "9223372036854775807", "0", "1", "-1", "4611686018427387904"])(
    "reads %s exactly and writes it back unchanged",
    (text) => {
      const job = jobFromJson(jobBody({ currentHash: text }));
      expect(job.currentHash).toBe(BigInt(text));
      expect(jobToJson(job).currentHash).toBe(text);
    },
  );

  it.each(["-9223372036854775809", "9223372036854775808", "99999999999999999999999"])("rejects %s, one past the range", (text) => {
    const issue = issueOf(() => jobFromJson(jobBody({ currentHash: text })));
    expect(issue.pointer).toBe("/currentHash");
    expect(issue.message).toContain(INT64_RANGE);
  });

  it("rejects the JSON number 1 (numbers lose digits) but accepts the string \"1\"", () => {
    const issue = issueOf(() => jobFromJson(jobBody({ currentHash: 1 })));
    expect(issue).toEqual({ pointer: "/currentHash", message: expect.stringContaining(INT64_RANGE) as unknown });
    expect(issue.message).toContain('write "1"');
    expect(jobFromJson(jobBody({ currentHash: "1" })).currentHash).toBe(1n);
  });

  it.each(["01", "-0", " 1", "1 ", "1e3", "+1", "0x10", "1.0", "", "-", "١"])("rejects the non-canonical %j", (text) => {
    expect(issueOf(() => jobFromJson(jobBody({ currentHash: text }))).pointer).toBe("/currentHash");
  });

  it.each([true, {}, [], 9007199254740992])("rejects a non-string (%j)", (value) => {
    expect(issueOf(() => jobFromJson(jobBody({ currentHash: value }))).pointer).toBe("/currentHash");
  });
});

describe("uint64 (Log.timestamp, OptionalInt64 sharedMemorySize)", () => {
  it("writes 0 and 2^64-1 as decimal strings and reads them back", () => {
    for (const timestamp of [0n, 2n ** 64n - 1n]) {
      const json = messageToJson(LogSchema, create(LogSchema, { timestamp }));
      expect(json.timestamp).toBe(timestamp.toString());
      expect(messageFromJson(LogSchema, json).timestamp).toBe(timestamp);
    }
  });

  it.each(["18446744073709551616", "-1", "-0"])("rejects %s", (text) => {
    const issue = issueOf(() => messageFromJson(LogSchema, { timestamp: text }));
    expect(issue.pointer).toBe("/timestamp");
    expect(issue.message).toContain("between 0 and 18446744073709551615");
  });

  it("reads a flattened OptionalInt64 as its decimal string", () => {
    const job = jobFromJson(jobBody({ norskServiceParameters: { sharedMemorySize: "18446744073709551615" } }));
    expect(job.norskServiceParameters?.sharedMemorySize?.value).toBe(2n ** 64n - 1n);
    const issue = issueOf(() => jobFromJson(jobBody({ norskServiceParameters: { sharedMemorySize: 64 } })));
    expect(issue.pointer).toBe("/norskServiceParameters/sharedMemorySize");
  });
});

describe("32-bit integers: JSON integers in range", () => {
  const service = (restartCount: unknown) => jobBody({ services: [{ name: "s", restartCount }] });

  it("accepts 0 and 4294967295 for a uint32", () => {
    expect(jobFromJson(service(4294967295)).services[0]?.restartCount).toBe(4294967295);
    expect(jobFromJson(service(0)).services[0]?.restartCount).toBe(0);
  });

  it.each([-1, 4294967296, 1.5, "3", "3.0", true])("rejects %j for a uint32", (value) => {
    const issue = issueOf(() => jobFromJson(service(value)));
    expect(issue.pointer).toBe("/services/0/restartCount");
    expect(issue.message).toContain("between 0 and 4294967295");
  });
});

describe("float and double: numbers, and the proto3 strings for non-finite values", () => {
  it.each([
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["-Infinity", -Infinity],
  ])("reads and writes %s", (text, value) => {
    const message = messageFromJson(JobRequirementsSchema, { requiredCapacity: text, requiredGpuCapacity: text });
    expect(message.requiredCapacity).toBe(value);
    expect(message.requiredGpuCapacity?.value).toBe(value);
    const json = messageToJson(JobRequirementsSchema, message);
    expect(json.requiredCapacity).toBe(text);
    expect(json.requiredGpuCapacity).toBe(text);
    expect(JSON.parse(JSON.stringify(json))).toEqual(json);
  });

  it("rejects a number beyond float32 range for a float, not for a double", () => {
    const issue = issueOf(() => messageFromJson(JobRequirementsSchema, { requiredGpuCapacity: 1e39 }));
    expect(issue.pointer).toBe("/requiredGpuCapacity");
    expect(messageFromJson(JobRequirementsSchema, { requiredCapacity: 1e39 }).requiredCapacity).toBe(1e39);
  });

  it.each(["nan", "inf", "1.5", true])("rejects %j", (value) => {
    expect(issueOf(() => messageFromJson(JobRequirementsSchema, { requiredCapacity: value })).pointer).toBe("/requiredCapacity");
  });
});

describe("bool and string", () => {
  it("rejects \"true\" for a bool", () => {
    const body = jobBody({ services: [{ parameters: { volumeMounts: [{ readOnly: "true" }] } }] });
    expect(issueOf(() => jobFromJson(body)).pointer).toBe("/services/0/parameters/volumeMounts/0/readOnly");
  });

  it("rejects a number for a string", () => {
    expect(issueOf(() => jobFromJson(jobBody({ description: 5 }))).message).toBe("must be a string, not the number 5");
  });

  it("rejects a lone surrogate (protobuf strings are UTF-8), accepts a surrogate pair", () => {
    expect(issueOf(() => jobFromJson(jobBody({ description: "a\ud800b" }))).pointer).toBe("/description");
    expect(jobFromJson(jobBody({ description: "😀" })).description).toBe("😀");
  });

  it("keeps every string byte for byte, JSON-hostile characters included", () => {
    const text = "\ufeffBOM first, line\nbreak \"quoted\" \\ tab\t nul\u0000 ü 😀";
    expect(jobToJson(jobFromJson(jobBody({ description: text }))).description).toBe(text);
  });
});

describe("a Job built from JSON is a real protobuf-es message", () => {
  it("is made with create(): it has its $typeName and encodes", () => {
    const job = jobFromJson(jobBody({ currentHash: "-1", launchConfigJson: "" }));
    expect(isMessage(job, JobSchema)).toBe(true);
    expect(equals(JobSchema, fromBinary(JobSchema, toBinary(JobSchema, job)), job)).toBe(true);
  });
});

describe("each scalar codec's refusal, word for word", () => {
  function refusal(type: ScalarType, json: unknown): string | undefined {
    const issues = new Issues();
    expect(scalarCodec(type, false).in(json, "/v", issues)).toBe(INVALID);
    return issues.list[0]?.message;
  }

  it("int64 given a JSON number: says to write it as a string, with the digits to write", () => {
    expect(refusal(ScalarType.INT64, 12)).toBe(
      'must be a decimal string of an int64 between -9223372036854775808 and 9223372036854775807, not the number 12 (a JSON number cannot carry 64 bits exactly: write "12")',
    );
  });

  it("int64 given something else: no hint about numbers", () => {
    expect(refusal(ScalarType.UINT64, true)).toBe("must be a decimal string of an uint64 between 0 and 18446744073709551615, not the boolean true");
  });

  it("int32 names its type and range", () => {
    expect(refusal(ScalarType.INT32, 2147483648)).toBe("must be an integer (int32) between -2147483648 and 2147483647, not the number 2147483648");
    expect(refusal(ScalarType.UINT32, -1)).toBe("must be an integer (uint32) between 0 and 4294967295, not the number -1");
  });

  it("float and double: the range for a number too large, none for a value of another type", () => {
    expect(refusal(ScalarType.FLOAT, 1e39)).toBe(
      'must be a number (float) within ±3.4028234663852886e+38 or one of "NaN", "Infinity", "-Infinity", not the number 1e+39',
    );
    expect(refusal(ScalarType.DOUBLE, "1.5")).toBe('must be a number (double) or one of "NaN", "Infinity", "-Infinity", not the string "1.5"');
  });

  it("bool and bytes say what they got", () => {
    expect(refusal(ScalarType.BOOL, "true")).toBe('must be a boolean, not the string "true"');
    expect(refusal(ScalarType.BYTES, "not base64!")).toBe('must be a base64 string, not the string "not base64!"');
  });

  it("reads JSON -0 as the integer 0, never -0", () => {
    for (const type of [ScalarType.INT32, ScalarType.UINT32, ScalarType.SINT32]) {
      expect(Object.is(scalarCodec(type, false).in(-0, "/v", new Issues()), 0)).toBe(true);
    }
  });

  it("reads base64 bytes", () => {
    expect(scalarCodec(ScalarType.BYTES, false).in("aGk=", "/v", new Issues())).toEqual(new Uint8Array([0x68, 0x69]));
  });

  it("reads base64 of any length, padded or not, standard or URL-safe", () => {
    const read = (text: string): unknown => scalarCodec(ScalarType.BYTES, false).in(text, "/v", new Issues());
    expect(read("AAECAw==")).toEqual(new Uint8Array([0, 1, 2, 3]));
    expect(read("AAECAw")).toEqual(new Uint8Array([0, 1, 2, 3]));
    expect(read("+/8A")).toEqual(new Uint8Array([0xfb, 0xff, 0x00]));
    expect(read("-_8A")).toEqual(new Uint8Array([0xfb, 0xff, 0x00]));
    expect(read("")).toEqual(new Uint8Array([]));
    expect(read("AAECAwQ")).toEqual(new Uint8Array([0, 1, 2, 3, 4]));
    expect(read("AAECA")).toBe(INVALID);
  });

  it("reads and writes a 64-bit integer as its decimal string for a field with jstype JS_STRING", () => {
    const codec = scalarCodec(ScalarType.INT64, true);
    expect(codec.in("-9223372036854775808", "/v", new Issues())).toBe("-9223372036854775808");
    expect(codec.out("9223372036854775807")).toBe("9223372036854775807");
    expect(scalarCodec(ScalarType.INT64, false).in("-9223372036854775808", "/v", new Issues())).toBe(-9223372036854775808n);
  });
});
