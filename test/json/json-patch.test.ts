import { describe, expect, it } from "vitest";
import { JsonPatchError, MAX_PATCHED_VALUES, applyJsonPatch, mergePatchBetween, parseJsonPatch, parsePointer } from "../../src/json/json-patch.js";

const apply = (doc: unknown, patch: unknown) => applyJsonPatch(doc, parseJsonPatch(patch));

function failure(run: () => unknown): { kind: string; pointer: string } {
  try {
    run();
  } catch (error) {
    if (error instanceof JsonPatchError) return { kind: error.kind, pointer: error.pointer };
    throw error;
  }
  throw new Error("no JsonPatchError");
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
});
