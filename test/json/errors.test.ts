import { describe, expect, it } from "vitest";
import { CreateAwsNodeRequestSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { MirrorError, describe as describeValue, escapeToken, setOwn } from "../../src/json/errors.js";
import { jobFromJson, jobToJson } from "../../src/json/job.js";
import { messageFromJson } from "../../src/json/mirror.js";
import { issueOf, issuesOf, jobBody } from "./helpers.js";

describe("unknown properties are rejected, each with its pointer", () => {
  it("names an unknown top-level property", () => {
    const issue = issueOf(() => jobFromJson(jobBody({ colour: "red" })));
    expect(issue.pointer).toBe("/colour");
    expect(issue.message).toMatch(/^unknown property "colour"; Job has jobId, description, tags, /);
  });

  it("names unknown properties at any depth, and a proto field name is not a JSON name", () => {
    const body = jobBody({ job_id: "x", services: [{ name: "a", restart_count: 1, parameters: { cpu_set: [] } }] });
    expect(issuesOf(() => jobFromJson(body)).map((i) => i.pointer)).toEqual([
      "/job_id",
      "/services/0/restart_count",
      "/services/0/parameters/cpu_set",
    ]);
  });

  it("escapes ~ and / in pointers (RFC 6901)", () => {
    expect(issueOf(() => jobFromJson(jobBody({ "a/b~c": 1 }))).pointer).toBe("/a~1b~0c");
    expect(escapeToken("~/~1")).toBe("~0~1~01");
    expect(issueOf(() => jobFromJson(jobBody({ tags: { "x/y": 5 } }))).pointer).toBe("/tags/x~1y");
  });

  it("treats a own property __proto__ (as JSON.parse makes it) as unknown, and changes no prototype", () => {
    const body: unknown = JSON.parse('{"jobId":"j","startDateTime":"2025-12-02T10:00:00Z","__proto__":{"description":"x"}}');
    expect(issueOf(() => jobFromJson(body)).pointer).toBe("/__proto__");
    expect(({} as Record<string, unknown>).description).toBeUndefined();
  });
});

describe("oneof: at most one member", () => {
  it("rejects two members of a oneof, naming both pointers", () => {
    const body = jobBody({ services: [{ parameters: { portMappings: [{ ephemeral: {}, range: { minPort: 1, maxPort: 2 } }] } }] });
    const issue = issueOf(() => jobFromJson(body));
    expect(issue.pointer).toBe("/services/0/parameters/portMappings/0/range");
    expect(issue.message).toBe(
      "only one of ephemeral, range, specific may be set, but /services/0/parameters/portMappings/0/ephemeral is set too",
    );
  });

  it("rejects two scalar members (AwsLaunchTemplate id and name), even empty ones", () => {
    const issue = issueOf(() => messageFromJson(CreateAwsNodeRequestSchema, { template: { id: "", name: "n" } }));
    expect(issue.pointer).toBe("/template/name");
  });

  it("keeps a scalar member set to \"\" set", () => {
    const request = messageFromJson(CreateAwsNodeRequestSchema, { template: { id: "" } });
    expect(request.template?.template).toEqual({ case: "id", value: "" });
  });
});

describe("errors are collected, not stopped at the first", () => {
  it("reports every problem of a body in input order", () => {
    const body = { jobId: 1, startDateTime: "tomorrow", currentHash: 5, state: "running", volumes: ["a", null, 3], tags: [] };
    expect(issuesOf(() => jobFromJson(body)).map((i) => i.pointer)).toEqual([
      "/jobId",
      "/startDateTime",
      "/currentHash",
      "/state",
      "/volumes/1",
      "/volumes/2",
      "/tags",
    ]);
  });

  it("says what it got", () => {
    expect(issueOf(() => jobFromJson(jobBody({ volumes: [null] })))).toEqual({ pointer: "/volumes/0", message: "must not be null" });
    // A caller's object (not JSON.parse's) may hold undefined: a list has no absent elements either.
    expect(issueOf(() => jobFromJson(jobBody({ volumes: [undefined] })))).toEqual({ pointer: "/volumes/0", message: "must not be null" });
    expect(issueOf(() => jobFromJson(jobBody({ tags: { a: null } })))).toEqual({ pointer: "/tags/a", message: "must not be null" });
    expect(issueOf(() => jobFromJson(jobBody({ services: {} }))).message).toBe("must be an array, not an object");
  });

  it("rejects a body that is not an object at the root pointer", () => {
    for (const body of [[], "job", 1, null, true]) {
      expect(issueOf(() => jobFromJson(body))).toEqual({ pointer: "", message: expect.stringMatching(/^must be an object \(Job\)/) as unknown });
    }
  });

  it("prefixes pointers with the base pointer of the value in its request", () => {
    expect(issueOf(() => messageFromJson(JobSchema, { nope: 1 }, "/job")).pointer).toBe("/job/nope");
  });

  it("is a MirrorError whose message names the first problem and the count of the others", () => {
    try {
      jobFromJson({ a: 1, b: 2 });
      expect.fail("expected a MirrorError");
    } catch (error) {
      expect(error).toBeInstanceOf(MirrorError);
      expect((error as Error).message).toMatch(/^\/a: unknown property "a".* \(and 1 more\)$/);
    }
  });
});

describe("map keys: own data properties, never prototypes", () => {
  it("reads and writes a tag named __proto__ as an ordinary key", () => {
    const body: unknown = JSON.parse('{"jobId":"j","startDateTime":"2025-12-02T10:00:00Z","tags":{"__proto__":"x","constructor":"y"}}');
    const job = jobFromJson(body);
    expect(Object.hasOwn(job.tags, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(job.tags)).toBe(Object.prototype);
    const json = jobToJson(job);
    expect(Object.getPrototypeOf(json.tags)).toBe(Object.prototype);
    expect(Object.keys(json.tags)).toEqual(["__proto__", "constructor"]);
    expect(JSON.stringify(json.tags)).toBe('{"__proto__":"x","constructor":"y"}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("reads only own keys", () => {
    const tags = Object.create({ inherited: "no" }) as Record<string, string>;
    tags.own = "yes";
    expect(jobFromJson(jobBody({ tags })).tags).toEqual({ own: "yes" });
  });
});

describe("messageToJson checks the message type", () => {
  it("refuses a message of another type", () => {
    const job = jobFromJson(jobBody());
    expect(() => jobToJson({ ...job, $typeName: "norsk.api.manager.JobHash" } as unknown as typeof job)).toThrow(TypeError);
  });
});

describe("MirrorError's message: the first problem, then how many more", () => {
  it("is named MirrorError, as error logs and problem renderers see it", () => {
    expect(new MirrorError([{ pointer: "/a", message: "m" }]).name).toBe("MirrorError");
  });

  it("names the one problem alone, with no count", () => {
    expect(new MirrorError([{ pointer: "/jobId", message: "must be a string" }]).message).toBe("/jobId: must be a string");
  });

  it("names the root pointer (the empty string) as (root)", () => {
    expect(new MirrorError([{ pointer: "", message: "must be an object" }]).message).toBe("(root): must be an object");
  });

  it("counts the problems after the first", () => {
    const issues = [
      { pointer: "/a", message: "x" },
      { pointer: "/b", message: "y" },
      { pointer: "/c", message: "z" },
    ];
    expect(new MirrorError(issues).message).toBe("/a: x (and 2 more)");
    expect(new MirrorError(issues).errors).toEqual(issues);
  });

  it("says invalid value when it is given no problem", () => {
    expect(new MirrorError([]).message).toBe("invalid value");
  });
});

describe("describe: what a value was, in a message", () => {
  it.each([
    [null, "null"],
    [[1, 2], "an array"],
    [{ a: 1 }, "an object"],
    [7.5, "the number 7.5"],
    [true, "the boolean true"],
    [false, "the boolean false"],
    ["job", 'the string "job"'],
    ['say "hi"', 'the string "say \\"hi\\""'],
    [undefined, "undefined"],
  ])("describes %j as %s", (value, text) => {
    expect(describeValue(value)).toBe(text);
  });

  it("quotes a string of 40 characters whole and cuts a longer one after 40, with an ellipsis", () => {
    const forty = "x".repeat(40);
    expect(describeValue(forty)).toBe(`the string "${forty}"`);
    expect(describeValue(`${forty}yz`)).toBe(`the string "${forty}…"`);
  });
});

describe("setOwn: a key __proto__ is an ordinary member", () => {
  it("makes __proto__ an own member like any other: enumerable, writable, configurable", () => {
    const target: Record<string, number> = {};
    setOwn(target, "__proto__", 1);
    setOwn(target, "a", 2);
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")).toEqual({ value: 1, enumerable: true, writable: true, configurable: true });
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
    setOwn(target, "__proto__", 3);
    expect(Object.getOwnPropertyDescriptor(target, "__proto__")?.value).toBe(3);
    expect(Reflect.deleteProperty(target, "__proto__")).toBe(true);
    expect(Object.keys(target)).toEqual(["a"]);
  });
});
