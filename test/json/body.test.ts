// The strict JSON body reader: what JSON.parse lets through (repeated keys, invalid UTF-8) is
// refused with a pointer, prototype-poisoning keys still are, and every other JSON text reads
// exactly as JSON.parse reads it.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { JsonBodyError, MAX_DEPTH, firstInvalidUtf8, parseJsonBody } from "../../src/json/body.js";
import { MAX_LISTED_ISSUES } from "../../src/json/errors.js";

function refusal(text: string | Buffer): { detail: string; errors: readonly { pointer: string; message: string }[] } {
  try {
    parseJsonBody(typeof text === "string" ? Buffer.from(text) : text);
  } catch (error) {
    if (error instanceof JsonBodyError) return { detail: error.detail, errors: error.errors };
    throw error;
  }
  throw new Error(`accepted ${String(text)}`);
}

function refusalError(text: string): JsonBodyError {
  try {
    parseJsonBody(Buffer.from(text));
  } catch (error) {
    if (error instanceof JsonBodyError) return error;
    throw error;
  }
  throw new Error(`accepted ${text}`);
}

const pointers = (text: string): string[] => refusal(text).errors.map((e) => e.pointer);

describe("repeated keys", () => {
  it("refuses a repeated top-level key, pointing at it", () => {
    expect(refusal('{"jobId":"a","jobId":"b","startDateTime":"2026-01-01T00:00:00Z"}')).toEqual({
      detail: "the request body repeats a key or has a forbidden one",
      errors: [{ pointer: "/jobId", message: "is a repeated key (each name may appear once in an object)" }],
    });
  });

  it("points into nested objects and arrays, and lists every repeat", () => {
    expect(pointers('{"services":[{"name":"a"},{"name":"b","parameters":{"cpuSet":[],"cpuSet":[1]}}],"tags":{"x":"1","x":"2"}}')).toEqual([
      "/services/1/parameters/cpuSet",
      "/tags/x",
    ]);
  });

  it("counts array elements across nested arrays and strings holding brackets and commas", () => {
    expect(pointers('[[1,[2,3]],{"a":"],[{,\\"}"},{"b":1,"b":2}]')).toEqual(["/2/b"]);
  });

  it("compares keys by value: an escaped spelling of the same name is a repeat", () => {
    expect(pointers('{"a":1,"\\u0061":2}')).toEqual(["/a"]);
    expect(pointers('{"a\\"b":1,"a\\u0022b":2}')).toEqual(['/a"b']);
  });

  it("is not fooled by strings that begin with a colon or keys spaced from their colon", () => {
    expect(pointers('{"a":1,"a" :2,"b" :":x"}')).toEqual(["/a"]);
    expect(pointers('{"a":1,"a":2,"b":":x","c":"\\":"}')).toEqual(["/a"]);
    expect(parseJsonBody(Buffer.from('{"a" :":",\n"b"\t: "x\\":y"}'))).toEqual({ a: ":", b: 'x":y' });
  });

  it("finds a repeat as deep as a body may nest", () => {
    const deep = (inner: string) => `${'{"n":['.repeat(15)}${inner}${"]}".repeat(15)}`;
    expect(pointers(deep('{"k":1,"k":2}'))).toEqual([`${"/n/0".repeat(15)}/k`]);
    expect(parseJsonBody(Buffer.from(deep('{"k":1}')))).toBeTypeOf("object");
  });

  it("lists the first 100 offenders of a body of 100,000 repeats, counts at least one more, and stops there", () => {
    const body = `{"tags":{${Array.from({ length: 100_000 }, () => '"k":"v"').join(",")}}}`;
    const error = (() => {
      try {
        parseJsonBody(Buffer.from(body));
      } catch (caught) {
        return caught as JsonBodyError;
      }
      throw new Error("accepted");
    })();
    expect(error.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(error.errors[0]).toEqual({ pointer: "/tags/k", message: "is a repeated key (each name may appear once in an object)" });
    // The scan stops at the first offender past the list: the count is a lower bound.
    expect(error.notListed).toBe(1);
  });

  it("lists 100 of 60,000 prototype-poisoning keys", () => {
    const error = refusalError(`[${Array.from({ length: 60_000 }, () => '{"__proto__":1}').join(",")}]`);
    expect(error.errors).toHaveLength(MAX_LISTED_ISSUES);
    expect(error.errors[99]).toEqual({ pointer: "/99/__proto__", message: "is not allowed (a prototype-poisoning key)" });
    expect(error.notListed).toBeGreaterThan(0);
  });

  // Each text below writes as many `":` as the value keeps keys, so only the exact scan can find its repeat.
  it.each([
    ['{"a"  :":x","a"  :1}', "a key spaced from its colon by more than one blank, next to a value beginning with a colon"],
    ['{"a" :":x","a" :1}', "a key spaced from its colon, next to a value beginning with a colon"],
    ['{"a":"\\":","a":1}', "a value holding an escaped quote before a colon"],
    ['{"x":[1],"a":1,"a":2}', "an array next to the repeat"],
  ])("finds the repeat in %j (%s)", (text) => {
    expect(pointers(text)).toEqual(["/a"]);
  });

  it("escapes ~ and / in the pointer (RFC 6901)", () => {
    expect(pointers('{"x/y~z":1,"x/y~z":2}')).toEqual(["/x~1y~0z"]);
  });

  it("accepts equal keys in different objects, and values equal to keys", () => {
    expect(parseJsonBody(Buffer.from('{"a":{"a":"a"},"b":[{"a":1},{"a":2}],"c":"a"}'))).toEqual({ a: { a: "a" }, b: [{ a: 1 }, { a: 2 }], c: "a" });
  });

  it("accepts strings ending in escaped backslashes next to keys", () => {
    expect(parseJsonBody(Buffer.from('{"a\\\\":"\\\\","b":"x\\\\\\""}'))).toEqual({ "a\\": "\\", b: 'x\\"' });
  });
});

describe("nesting", () => {
  it("reads arrays and objects nested as deep as the limit", () => {
    expect(parseJsonBody(Buffer.from(`${"[".repeat(MAX_DEPTH)}${"]".repeat(MAX_DEPTH)}`))).toBeInstanceOf(Array);
    expect(parseJsonBody(Buffer.from(`${'{"a":'.repeat(MAX_DEPTH)}1${"}".repeat(MAX_DEPTH)}`))).toBeTypeOf("object");
  });

  it("refuses one level deeper, naming the limit and where it was passed", () => {
    expect(refusal(`${"[".repeat(MAX_DEPTH + 1)}${"]".repeat(MAX_DEPTH + 1)}`)).toEqual({
      detail: `the request body nests arrays and objects deeper than ${MAX_DEPTH}`,
      errors: [{ pointer: "", message: `nests deeper than ${MAX_DEPTH} arrays and objects (at character ${MAX_DEPTH})` }],
    });
  });

  it("refuses 500,000 nested arrays before parsing them", () => {
    expect(refusal(`${"[".repeat(500_000)}${"]".repeat(500_000)}`).detail).toBe(`the request body nests arrays and objects deeper than ${MAX_DEPTH}`);
  });

  it("counts no brackets inside strings, escaped quotes included, and tolerates a string left open", () => {
    const brackets = `"${'\\"[{'.repeat(100)}"`;
    expect(parseJsonBody(Buffer.from(`{"a":[${brackets}]}`))).toEqual({ a: [JSON.parse(brackets) as string] });
    expect(refusal(`["${"[".repeat(100)}`).detail).toBe("the request body is not valid JSON");
  });
});

describe("prototype-poisoning keys", () => {
  it("refuses __proto__ at any depth", () => {
    expect(refusal('{"a":[{"__proto__":{"admin":true}}]}').errors).toEqual([
      { pointer: "/a/0/__proto__", message: "is not allowed (a prototype-poisoning key)" },
    ]);
  });

  it("allows constructor and prototype on their own in a body that is scanned key by key (it repeats a key)", () => {
    expect(refusal('{"constructor":{"name":"c","x":{"prototype":1}},"prototype":{"constructor":1},"y":{"prototype":{}},"r":1,"r":2}').errors).toEqual([
      { pointer: "/r", message: "is a repeated key (each name may appear once in an object)" },
    ]);
  });

  it("says why constructor.prototype is refused", () => {
    expect(refusal('{"constructor":{"prototype":{}}}')).toEqual({
      detail: "the request body repeats a key or has a forbidden one",
      errors: [{ pointer: "/constructor/prototype", message: "is not allowed (constructor.prototype poisons prototypes)" }],
    });
  });

  it("refuses constructor.prototype, and allows constructor and prototype on their own", () => {
    expect(pointers('{"x":{"constructor":{"prototype":{"admin":true}}}}')).toEqual(["/x/constructor/prototype"]);
    expect(parseJsonBody(Buffer.from('{"constructor":{"name":"c"},"prototype":1,"y":{"prototype":{}}}'))).toEqual({
      constructor: { name: "c" },
      prototype: 1,
      y: { prototype: {} },
    });
  });
});

describe("bytes and syntax", () => {
  it("refuses invalid UTF-8 instead of reading U+FFFD, naming the first bad byte", () => {
    const bytes = Buffer.concat([Buffer.from('{"jobId":"'), Buffer.from([0xff, 0xfe, 0xc3, 0x28]), Buffer.from('"}')]);
    expect(refusal(bytes)).toEqual({
      detail: "the request body is not valid UTF-8",
      errors: [{ pointer: "", message: "is not valid UTF-8 (at byte 10)" }],
    });
  });

  it.each([
    { name: "a lone continuation byte", bytes: [0x61, 0x80], offset: 1 },
    { name: "a truncated sequence", bytes: [0x61, 0xe2, 0x82], offset: 1 },
    { name: "an overlong encoding", bytes: [0xc0, 0xaf], offset: 0 },
    { name: "an overlong three-byte form", bytes: [0xe0, 0x80, 0xaf], offset: 0 },
    { name: "a surrogate", bytes: [0x22, 0xed, 0xa0, 0x80], offset: 1 },
    { name: "a code point above U+10FFFF", bytes: [0xf4, 0x90, 0x80, 0x80], offset: 0 },
    { name: "a bad second byte after a good character", bytes: [0xc3, 0xa9, 0xc3, 0x28], offset: 2 },
  ])("finds $name at byte $offset", ({ bytes, offset }) => {
    expect(firstInvalidUtf8(Uint8Array.from(bytes))).toBe(offset);
  });

  // RFC 3629 §4: each lead byte's range, and the second byte's range that depends on it, at both ends.
  it.each([
    { name: "U+0080, the first two-byte character (lead C2)", bytes: [0xc2, 0x80] },
    { name: "U+07FF, the last two-byte character (lead DF)", bytes: [0xdf, 0xbf] },
    { name: "U+0800, the first three-byte character (lead E0, second byte from A0)", bytes: [0xe0, 0xa0, 0x80] },
    { name: "U+1000 (lead E1, second byte from 80)", bytes: [0xe1, 0x80, 0x80] },
    { name: "U+D7FF, the last before the surrogates (lead ED, second byte up to 9F)", bytes: [0xed, 0x9f, 0xbf] },
    { name: "U+FFFF (lead EF)", bytes: [0xef, 0xbf, 0xbf] },
    { name: "U+10000, the first four-byte character (lead F0, second byte from 90)", bytes: [0xf0, 0x90, 0x80, 0x80] },
    { name: "U+40000 (lead F1)", bytes: [0xf1, 0x80, 0x80, 0x80] },
    { name: "U+FFFFF (lead F3)", bytes: [0xf3, 0xbf, 0xbf, 0xbf] },
    { name: "U+10FFFF, the last character (lead F4, second byte up to 8F)", bytes: [0xf4, 0x8f, 0xbf, 0xbf] },
  ])("reads $name as one well-formed sequence", ({ bytes }) => {
    expect(firstInvalidUtf8(Uint8Array.from([0x61, ...bytes, 0x62]))).toBe(bytes.length + 2);
  });

  it.each([
    { name: "lead C1 (an overlong two-byte form)", bytes: [0xc1, 0xbf] },
    { name: "lead E0 with a second byte under A0 (overlong)", bytes: [0xe0, 0x9f, 0xbf] },
    { name: "lead ED with a second byte over 9F (a surrogate)", bytes: [0xed, 0xa0, 0x80] },
    { name: "lead F0 with a second byte under 90 (overlong)", bytes: [0xf0, 0x8f, 0xbf, 0xbf] },
    { name: "lead F4 with a second byte over 8F (above U+10FFFF)", bytes: [0xf4, 0x90, 0x80, 0x80] },
    { name: "lead F5 (nothing starts with it)", bytes: [0xf5, 0x80, 0x80, 0x80] },
    { name: "lead F8", bytes: [0xf8, 0x80, 0x80, 0x80] },
    { name: "a second byte under 80", bytes: [0xc3, 0x7f] },
    { name: "a second byte over BF", bytes: [0xc3, 0xc0] },
    { name: "a third byte under 80", bytes: [0xe1, 0x80, 0x7f] },
    { name: "a third byte over BF", bytes: [0xe1, 0x80, 0xc0] },
    { name: "a fourth byte over BF", bytes: [0xf1, 0x80, 0x80, 0xc0] },
    { name: "a sequence cut short by the end", bytes: [0xf1, 0x80, 0x80] },
    { name: "continuation bytes with no lead", bytes: [0x80, 0x80, 0x80, 0x80] },
    { name: "lead C1 followed by as many continuation bytes as any sequence has", bytes: [0xc1, 0xbf, 0xbf, 0xbf] },
  ])("refuses $name, at its first byte", ({ bytes }) => {
    expect(firstInvalidUtf8(Uint8Array.from([0x61, ...bytes]))).toBe(1);
  });

  it("reads well-formed UTF-8 of every length, and ignores a leading byte order mark", () => {
    const text = '{"s":"aé€𝄞"}';
    expect(firstInvalidUtf8(Buffer.from(text))).toBe(Buffer.byteLength(text));
    expect(parseJsonBody(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]))).toEqual({ s: "aé€𝄞" });
  });

  it("refuses an empty body and a syntax error, without quoting the input", () => {
    expect(refusal("")).toEqual({ detail: "the request body is empty", errors: [{ pointer: "", message: "is empty; a JSON document is required" }] });
    const bad = refusal('{"secret-token": ');
    expect(bad.detail).toBe("the request body is not valid JSON");
    expect(JSON.stringify(bad)).not.toContain("secret-token");
  });
});

describe("where a syntax error is", () => {
  it.each([
    ["[1 2]", "is not valid JSON (at character 3)"],
    ['{"abcdefgh":1}}', "is not valid JSON (at character 14)"],
    ["tru", "is not valid JSON"],
    ["{\"a\": x}", "is not valid JSON"],
  ])("refuses %j saying %j: the character when JSON.parse names one, and never the text", (text, message) => {
    expect(refusal(text)).toEqual({ detail: "the request body is not valid JSON", errors: [{ pointer: "", message }] });
  });
});

const ordinaryKey = fc.string().filter((key) => !["__proto__", "constructor", "prototype"].includes(key));

describe("agreement with JSON.parse", () => {
  it("finds a repeated key in any object, however it is spaced", () => {
    const clean = fc.jsonValue().filter((value) => !/__proto__|"prototype"/.test(JSON.stringify(value)));
    fc.assert(
      fc.property(fc.dictionary(ordinaryKey, clean), ordinaryKey, clean, clean, fc.constantFrom("", " ", "\n  ", "\t"), (others, key, first, second, ws) => {
        const entry = (name: string, value: unknown) => `${JSON.stringify(name)}${ws}:${ws}${JSON.stringify(value)}`;
        const entries = [entry(key, first), ...Object.entries(others).filter(([name]) => name !== key).map(([name, value]) => entry(name, value)), entry(key, second)];
        const text = `{${ws}${entries.join(`,${ws}`)}${ws}}`;
        expect(pointers(text)).toContain(`/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
      }),
      { numRuns: 300 },
    );
  });

  it("reads any JSON text without repeated or poisoning keys exactly as JSON.parse does", () => {
    const clean = fc.jsonValue().filter((value) => !/__proto__|"prototype"/.test(JSON.stringify(value)));
    fc.assert(
      fc.property(clean, fc.boolean(), (value, pretty) => {
        const text = JSON.stringify(value, null, pretty ? 2 : undefined);
        expect(parseJsonBody(Buffer.from(text))).toEqual(JSON.parse(text));
      }),
      { numRuns: 500 },
    );
  });
});
