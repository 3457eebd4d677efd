import { describe, expect, it } from "vitest";
import {
  JsonPatchError,
  MAX_PATCHED_DEPTH,
  MAX_PATCHED_VALUES,
  MAX_PATCH_OPERATIONS,
  applyJsonPatch,
  jsonEqual,
  mergePatchBetween,
  parseJsonPatch,
  parsePointer,
} from "../../src/json/json-patch.js";

const apply = (doc: unknown, patch: unknown) => applyJsonPatch(doc, parseJsonPatch(patch));

function thrown(run: () => unknown): JsonPatchError {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonPatchError) return error;
    throw error;
  }
  throw new Error("no JsonPatchError");
}

function failure(run: () => unknown): { kind: string; pointer: string } {
  const { kind, pointer } = thrown(run);
  return { kind, pointer };
}

/** `value` nested `levels` deep (1 is the value itself): in arrays, or in objects under "a". */
function nested(levels: number, form: "array" | "object"): unknown {
  let value: unknown = 0;
  for (let level = 1; level < levels; level++) value = form === "array" ? [value] : { a: value };
  return value;
}

/** Every member of every object in `value` is a plain data property, as JSON.parse makes them. */
function plainDataEverywhere(value: unknown): boolean {
  if (Array.isArray(value)) return value.every(plainDataEverywhere);
  if (typeof value !== "object" || value === null) return true;
  return Object.keys(value).every((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key);
    return descriptor?.writable === true && descriptor.enumerable === true && descriptor.configurable === true && plainDataEverywhere(descriptor.value);
  });
}

describe("JSON Pointer (RFC 6901)", () => {
  it("unescapes ~1 to / and ~0 to ~, in that order", () => {
    expect(parsePointer("/a~1b/m~0n/~01")).toEqual(["a/b", "m~n", "~1"]);
    expect(parsePointer("")).toEqual([]);
    expect(parsePointer("/")).toEqual([""]);
  });

  it.each(["a", "/~2", "/a~"])("refuses %j", (pointer) => {
    expect(parsePointer(pointer)).toBeUndefined();
  });
});

describe("applyJsonPatch (RFC 6902)", () => {
  it("adds, removes, replaces, moves, copies and tests (RFC 6902 appendix A)", () => {
    expect(apply({ foo: "bar" }, [{ op: "add", path: "/baz", value: "qux" }])).toEqual({ foo: "bar", baz: "qux" });
    expect(apply({ foo: ["bar", "baz"] }, [{ op: "add", path: "/foo/1", value: "qux" }])).toEqual({ foo: ["bar", "qux", "baz"] });
    expect(apply({ foo: ["bar"] }, [{ op: "add", path: "/foo/-", value: "end" }])).toEqual({ foo: ["bar", "end"] });
    expect(apply({ foo: ["bar", "qux", "baz"] }, [{ op: "remove", path: "/foo/1" }])).toEqual({ foo: ["bar", "baz"] });
    expect(apply({ baz: "qux", foo: "bar" }, [{ op: "replace", path: "/baz", value: "boo" }])).toEqual({ baz: "boo", foo: "bar" });
    expect(apply({ foo: { bar: "baz", waldo: "fred" }, qux: { corge: "grault" } }, [{ op: "move", from: "/foo/waldo", path: "/qux/thud" }])).toEqual({
      foo: { bar: "baz" },
      qux: { corge: "grault", thud: "fred" },
    });
    expect(apply({ foo: ["all", "grass", "cows", "eat"] }, [{ op: "move", from: "/foo/1", path: "/foo/3" }])).toEqual({ foo: ["all", "cows", "eat", "grass"] });
    expect(apply({ a: { b: 1 } }, [{ op: "copy", from: "/a", path: "/c" }])).toEqual({ a: { b: 1 }, c: { b: 1 } });
    expect(apply({ baz: "qux", foo: ["a", 2, "c"] }, [{ op: "test", path: "/foo", value: ["a", 2, "c"] }])).toEqual({ baz: "qux", foo: ["a", 2, "c"] });
    expect(apply({ "/": 9, "~1": 10 }, [{ op: "test", path: "/~01", value: 10 }, { op: "replace", path: "/~1", value: 1 }])).toEqual({ "/": 1, "~1": 10 });
  });

  it("tests JSON equality: members in any order, and no type coercion", () => {
    expect(() => apply({ a: { x: 1, y: 2 } }, [{ op: "test", path: "/a", value: { y: 2, x: 1 } }])).not.toThrow();
    expect(failure(() => apply({ a: 1 }, [{ op: "test", path: "/a", value: "1" }]))).toEqual({ kind: "conflict", pointer: "/0/value" });
    expect(failure(() => apply({ a: [] }, [{ op: "test", path: "/a", value: {} }]))).toEqual({ kind: "conflict", pointer: "/0/value" });
  });

  it("changes nothing of the document, and nothing at all when a later operation fails", () => {
    const doc = { a: [1, 2], b: { c: 1 } };
    expect(failure(() => apply(doc, [{ op: "remove", path: "/a/0" }, { op: "test", path: "/b/c", value: 2 }]))).toEqual({ kind: "conflict", pointer: "/1/value" });
    apply(doc, [{ op: "remove", path: "/a/0" }, { op: "add", path: "/b/d", value: 1 }]);
    expect(doc).toEqual({ a: [1, 2], b: { c: 1 } });
  });

  it.each([
    [{ a: [1] }, [{ op: "remove", path: "/a/1" }], "/0/path"],
    [{ a: [1] }, [{ op: "add", path: "/a/2", value: 0 }], "/0/path"],
    [{ a: [1] }, [{ op: "add", path: "/a/01", value: 0 }], "/0/path"],
    [{ a: 1 }, [{ op: "replace", path: "/b", value: 0 }], "/0/path"],
    [{ a: 1 }, [{ op: "add", path: "/b/c", value: 0 }], "/0/path"],
    [{ a: 1 }, [{ op: "copy", from: "/z", path: "/b" }], "/0/from"],
    [{}, [{ op: "remove", path: "/__proto__" }], "/0/path"],
  ])("locates a path that names nothing in %j as a conflict", (doc, patch, pointer) => {
    expect(failure(() => apply(doc, patch))).toEqual({ kind: "conflict", pointer });
  });

  it.each([
    [{}, ""],
    [[{ op: "jump", path: "/a" }], "/0/op"],
    [[{ op: "add", path: "/a", value: 1 }, { op: "add", path: "a", value: 1 }], "/1/path"],
    [[{ op: "add", path: "/a" }], "/0/value"],
    [[{ op: "move", path: "/a" }], "/0/from"],
    [[{ op: "move", from: "/a", path: "/a/b" }], "/0/from"],
    [["remove"], "/0"],
  ])("refuses the malformed patch %j naming %s", (patch, pointer) => {
    expect(failure(() => parseJsonPatch(patch))).toEqual({ kind: "malformed", pointer });
  });

  it("keeps __proto__ as a plain member", () => {
    const result = apply({}, [{ op: "add", path: "/__proto__", value: { polluted: true } }]) as Record<string, unknown>;
    expect(Object.hasOwn(result, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("refuses a patch that copies the document into itself until it is too large", () => {
    const patch = Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "", path: `/c${i}` }));
    const error = failure(() => apply({ a: 1 }, patch));
    expect(error.kind).toBe("too large");
    expect(2 ** 40).toBeGreaterThan(MAX_PATCHED_VALUES);
  });

  it.each([
    ["not an array", () => parseJsonPatch({}), "malformed", "", "must be an array of operations"],
    [
      "too many operations",
      () => parseJsonPatch(Array.from({ length: MAX_PATCH_OPERATIONS + 1 }, () => ({ op: "remove", path: "/a" }))),
      "malformed",
      "",
      `must hold at most ${MAX_PATCH_OPERATIONS} operations`,
    ],
    ["an entry that is no object", () => parseJsonPatch(["remove"]), "malformed", "/0", "must be an operation object"],
    ["an unknown op", () => parseJsonPatch([{ op: "jump", path: "/a" }]), "malformed", "/0/op", "must be add, remove, replace, move, copy or test"],
    ["a path that is no pointer", () => parseJsonPatch([{ op: "remove", path: "a" }]), "malformed", "/0/path", "must be a JSON Pointer"],
    ["a from that is no pointer", () => parseJsonPatch([{ op: "copy", from: "a", path: "/b" }]), "malformed", "/0/from", "must be a JSON Pointer"],
    ["a from that is no string", () => parseJsonPatch([{ op: "move", from: 5, path: "/b" }]), "malformed", "/0/from", "must be a JSON Pointer"],
    ["a move into its own child", () => parseJsonPatch([{ op: "move", from: "/a", path: "/a/b" }]), "malformed", "/0/from", "cannot be moved into one of its own children"],
    ["a test without value", () => parseJsonPatch([{ op: "test", path: "/a" }]), "malformed", "/0/value", "is required"],
    ["an array index past the end", () => apply({ a: [1] }, [{ op: "remove", path: "/a/1" }]), "conflict", "/0/path", 'names no element: "1"'],
    ["a member that is not there", () => apply({ a: 1 }, [{ op: "replace", path: "/b", value: 0 }]), "conflict", "/0/path", 'names nothing in the document: no "b"'],
    ["a test of a member that is not there", () => apply({ a: 1 }, [{ op: "test", path: "/z", value: 0 }]), "conflict", "/0/path", 'names nothing in the document: no "z"'],
    ["a move from a member that is not there", () => apply({ a: 1 }, [{ op: "move", from: "/z", path: "/b" }]), "conflict", "/0/from", 'names nothing in the document: no "z"'],
    ["an add past the end of an array", () => apply({ a: [1] }, [{ op: "add", path: "/a/2", value: 0 }]), "conflict", "/0/path", 'names no place in the array: "2"'],
    ["a member of a number", () => apply({ a: 1 }, [{ op: "add", path: "/a/b", value: 0 }]), "conflict", "/0/path", "names a member of a value that is neither an object nor an array"],
    ["a failed test", () => apply({ a: 1 }, [{ op: "test", path: "/a", value: 2 }]), "conflict", "/0/value", 'differs from the value at "/a"'],
    [
      "a document grown too large",
      () => apply({ a: 1 }, Array.from({ length: 40 }, (_, i) => ({ op: "copy", from: "", path: `/c${i}` }))),
      "too large",
      // {a: 1} is 2 values and each copy of the root doubles them: 2 ** 17 is the first over 100,000.
      "/15",
      `would make the document larger than ${MAX_PATCHED_VALUES} values or deeper than ${MAX_PATCHED_DEPTH} levels`,
    ],
  ])("names what is wrong with %s: its kind, the patch's pointer and the client's words", (_what, run, kind, pointer, message) => {
    const error = thrown(run);
    expect(error).toBeInstanceOf(Error);
    expect({ name: error.name, kind: error.kind, pointer: error.pointer, message: error.message }).toEqual({ name: "JsonPatchError", kind, pointer, message });
  });

  it("takes a patch of exactly the most operations allowed", () => {
    const patch = Array.from({ length: MAX_PATCH_OPERATIONS }, () => ({ op: "test", path: "/a", value: 1 }));
    expect(parseJsonPatch(patch)).toHaveLength(MAX_PATCH_OPERATIONS);
  });

  it.each([
    ["onto itself, a no-op", { a: { b: 1 } }, { op: "move", from: "/a", path: "/a" }, { a: { b: 1 } }],
    ["into a sibling's child, sharing only a parent", { a: { b: 1, c: {} } }, { op: "move", from: "/a/b", path: "/a/c/d" }, { a: { c: { d: 1 } } }],
    ["into a member whose name starts with the same letters", { a: 1, ab: {} }, { op: "move", from: "/a", path: "/ab/c" }, { ab: { c: 1 } }],
    ["into a child of another member", { x: 1, a: {} }, { op: "move", from: "/x", path: "/a/b" }, { a: { b: 1 } }],
  ])("moves a value %s (only its own children are refused)", (_what, doc, operation, result) => {
    expect(apply(doc, [operation])).toEqual(result);
  });

  it.each([
    ["adds", [{ op: "add", path: "", value: [1] }], [1]],
    ["replaces", [{ op: "replace", path: "", value: { b: 2 } }], { b: 2 }],
    ["moves a member to", [{ op: "move", from: "/a", path: "" }], 1],
    ["copies a member to", [{ op: "copy", from: "/a", path: "" }], 1],
    ["removes", [{ op: "remove", path: "" }], undefined],
  ])("%s the whole document at the pointer \"\"", (_what, patch, result) => {
    expect(apply({ a: 1 }, patch)).toEqual(result);
  });

  it.each([1, null, "text", true])("refuses to add a member to the scalar %j as a conflict", (scalar) => {
    expect(failure(() => apply({ a: scalar }, [{ op: "add", path: "/a/b", value: 0 }]))).toEqual({ kind: "conflict", pointer: "/0/path" });
    expect(failure(() => apply({ a: scalar }, [{ op: "add", path: "/a/0", value: 0 }]))).toEqual({ kind: "conflict", pointer: "/0/path" });
  });

  it("reads array indexes of several digits", () => {
    const list = Array.from({ length: 12 }, (_, i) => i);
    expect(
      apply({ list }, [
        { op: "test", path: "/list/10", value: 10 },
        { op: "remove", path: "/list/10" },
        { op: "add", path: "/list/11", value: "end" },
        { op: "replace", path: "/list/10", value: "eleven" },
      ]),
    ).toEqual({ list: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "eleven", "end"] });
  });

  it.each(["array", "object"] as const)("bounds the depth of a value added, counting the path, in %s nesting", (form) => {
    const accepted = (path: string, levels: number) => apply({}, [{ op: "add", path, value: nested(levels, form) }]);
    expect(accepted("", MAX_PATCHED_DEPTH)).toEqual(nested(MAX_PATCHED_DEPTH, form));
    expect(failure(() => accepted("", MAX_PATCHED_DEPTH + 1))).toEqual({ kind: "too large", pointer: "/0" });
    expect(accepted("/b", MAX_PATCHED_DEPTH - 1)).toEqual({ b: nested(MAX_PATCHED_DEPTH - 1, form) });
    expect(failure(() => accepted("/b", MAX_PATCHED_DEPTH))).toEqual({ kind: "too large", pointer: "/0" });
  });

  it("bounds the values of the patched document: exactly the most allowed, not one more", () => {
    // {} is one value, the array one more, and each element one.
    const withElements = (count: number) => apply({}, [{ op: "add", path: "/b", value: new Array<number>(count).fill(0) }]);
    expect((withElements(MAX_PATCHED_VALUES - 2) as { b: unknown[] }).b).toHaveLength(MAX_PATCHED_VALUES - 2);
    expect(failure(() => withElements(MAX_PATCHED_VALUES - 1))).toEqual({ kind: "too large", pointer: "/0" });
  });

  it("counts every value of a document deeper than the depth bound, so that a patch cannot grow it past the values bound", () => {
    // The deep member is walked first; the wide one still counts.
    const document = { wide: new Array<number>(MAX_PATCHED_VALUES - 100).fill(0), deep: nested(MAX_PATCHED_DEPTH + 5, "object") };
    expect(failure(() => apply(document, [{ op: "add", path: "/x", value: new Array<number>(1000).fill(0) }]))).toEqual({ kind: "too large", pointer: "/0" });
    expect(apply(document, [{ op: "add", path: "/x", value: [0] }])).toHaveProperty("x", [0]);
  });

  it("gives a document of plain data members, as JSON.parse makes them, that a later operation can remove", () => {
    const result = apply({ a: { b: [{ c: 1 }] } }, [
      { op: "add", path: "/n", value: { m: 1 } },
      { op: "copy", from: "/a", path: "/k" },
      { op: "add", path: "/gone", value: 1 },
      { op: "remove", path: "/gone" },
    ]);
    expect(result).toEqual({ a: { b: [{ c: 1 }] }, n: { m: 1 }, k: { b: [{ c: 1 }] } });
    expect(plainDataEverywhere(result)).toBe(true);
  });

  it.each([
    ["add", { op: "add", path: "a", value: 1 }, "/0/path"],
    ["copy", { op: "copy", from: "a", path: "/b" }, "/0/from"],
    ["move", { op: "move", from: "a", path: "/b" }, "/0/from"],
  ] as const)("refuses an unparsed %s whose pointer is no JSON Pointer, never acting on the whole document", (_op, operation, pointer) => {
    const error = thrown(() => applyJsonPatch({ a: 1 }, [operation]));
    expect({ kind: error.kind, pointer: error.pointer, message: error.message }).toEqual({ kind: "malformed", pointer, message: "must be a JSON Pointer" });
  });
});

describe("jsonEqual (RFC 6902 section 4.6)", () => {
  it.each([
    [{ x: 1, y: [1, { z: "a" }] }, { y: [1, { z: "a" }], x: 1 }, true],
    [1, 1.0, true],
    [null, null, true],
    [[1], [1, 2], false],
    [[1, 2], [1], false],
    [{}, [], false],
    [{}, null, false],
    [{ a: 1 }, "x", false],
    [{ x: 1 }, { x: 1, y: 2 }, false],
    [{ x: 1, y: 2 }, { x: 1 }, false],
    [JSON.parse('{"__proto__": {}}') as unknown, { y: 1 }, false],
    ["1", 1, false],
    [0, false, false],
    [0, null, false],
  ])("%j equals %j: %s", (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
  });
});

describe("mergePatchBetween", () => {
  it("nulls removed members, diffs objects and gives arrays whole", () => {
    expect(mergePatchBetween({ a: 1, t: { x: "1", y: "2" }, s: [1, 2], k: "same" }, { t: { x: "1", z: "3" }, s: [1, 3], k: "same", n: true })).toEqual({
      a: null,
      t: { y: null, z: "3" },
      s: [1, 3],
      n: true,
    });
  });

  it("gives a member added under the name __proto__ as a plain member, and the patch as plain data", () => {
    const patch = mergePatchBetween({ k: 1 }, JSON.parse('{"__proto__": {}, "k": 2, "n": {"m": 1}}') as Record<string, unknown>);
    expect(Object.hasOwn(patch, "__proto__")).toBe(true);
    expect(Object.keys(patch)).toEqual(["__proto__", "k", "n"]);
    expect(plainDataEverywhere(patch)).toBe(true);
  });
});
