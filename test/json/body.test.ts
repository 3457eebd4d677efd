// The strict JSON body reader: what JSON.parse lets through (repeated keys, invalid UTF-8) is
// refused with a pointer, prototype-poisoning keys still are, and every other JSON text reads
// exactly as JSON.parse reads it.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { JsonBodyError, firstInvalidUtf8, parseJsonBody } from "../../src/json/body.js";

function refusal(text: string | Buffer): { detail: string; errors: readonly { pointer: string; message: string }[] } {
  try {
    parseJsonBody(typeof text === "string" ? Buffer.from(text) : text);
  } catch (error) {
    if (error instanceof JsonBodyError) return { detail: error.detail, errors: error.errors };
    throw error;
  }
  throw new Error(`accepted ${String(text)}`);
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

  it("finds a repeat nested deeper than the quick count goes", () => {
    const deep = (inner: string) => `${'{"n":['.repeat(200)}${inner}${"]}".repeat(200)}`;
    expect(pointers(deep('{"k":1,"k":2}'))).toEqual([`${"/n/0".repeat(200)}/k`]);
    expect(parseJsonBody(Buffer.from(deep('{"k":1}')))).toBeTypeOf("object");
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

describe("prototype-poisoning keys", () => {
  it("refuses __proto__ at any depth", () => {
    expect(refusal('{"a":[{"__proto__":{"admin":true}}]}').errors).toEqual([
      { pointer: "/a/0/__proto__", message: "is not allowed (a prototype-poisoning key)" },
    ]);
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
