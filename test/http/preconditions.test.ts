import { describe, expect, it } from "vitest";
import { etagOf, isCreateOnly, noneMatch, parseIfMatch, refuseIfNoneMatch } from "../../src/http/preconditions.js";
import { ProblemError } from "../../src/http/problem.js";

describe("ETag", () => {
  it("quotes the decimal hash, int64 extremes included", () => {
    expect(etagOf(-9223372036854775808n)).toBe('"-9223372036854775808"');
    expect(etagOf(9223372036854775807n)).toBe('"9223372036854775807"');
  });
});

describe("parseIfMatch", () => {
  it.each([
    [undefined, { kind: "none" }],
    ["*", { kind: "any" }],
    ['"42"', { kind: "hash", hash: 42n }],
    [' "-9223372036854775808" ', { kind: "hash", hash: -9223372036854775808n }],
    ['W/"42"', { kind: "never" }],
    ['"9223372036854775807"', { kind: "hash", hash: 9223372036854775807n }],
  ])("reads %j", (value, expected) => {
    expect(parseIfMatch(value)).toEqual(expected);
  });

  it.each([
    "42",
    '"abc"',
    '"9223372036854775808"',
    '"-9223372036854775809"',
    '"1", "2"',
    '"01"',
    '""',
    "garbage",
    '"-0"',
    // A weak tag is one whole tag, not the start or the end of something.
    'W/"42" x',
    'xW/"42"',
  ])("rejects %j with a 400", (value) => {
    const error = (() => {
      try {
        parseIfMatch(value);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(ProblemError);
    expect(error).toMatchObject({
      status: 400,
      code: "INVALID_ARGUMENT",
      detail: 'If-Match must be one entity tag such as "123" (the job\'s ETag) or *',
      errors: [{ header: "if-match", message: "is not a single strong entity tag of a job" }],
    });
  });
});

describe("noneMatch", () => {
  it.each([
    ['"5"', 5n, true],
    ['W/"5"', 5n, true],
    ['"4", "5"', 5n, true],
    ["*", 5n, true],
    ['"4"', 5n, false],
    ["junk", 5n, false],
    [undefined, 5n, false],
  ])("%j against hash %s is %s", (value, hash, expected) => {
    expect(noneMatch(value, hash)).toBe(expected);
  });
});

/** The problem `run` throws, or undefined. */
function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (e) {
    return e;
  }
  return undefined;
}

describe("isCreateOnly (If-None-Match on PUT)", () => {
  it.each([
    [undefined, false],
    ["*", true],
    [" * ", true],
  ])("reads %j as %s", (value, expected) => {
    expect(isCreateOnly(value)).toBe(expected);
  });

  it.each(['"42"', 'W/"42"', '*, "42"', "", "**"])("refuses %j with a 400 naming the header", (value) => {
    expect(thrown(() => isCreateOnly(value))).toMatchObject({
      status: 400,
      detail: "If-None-Match on PUT must be * (create the job only if it does not exist)",
      errors: [{ header: "if-none-match", message: "must be *" }],
    });
  });
});

describe("refuseIfNoneMatch (the other writes)", () => {
  it("lets a write without If-None-Match through", () => {
    expect(thrown(() => { refuseIfNoneMatch(undefined); })).toBeUndefined();
  });

  it.each(["*", '"42"', ""])("refuses %j with a 400 naming the header", (value) => {
    expect(thrown(() => { refuseIfNoneMatch(value); })).toMatchObject({
      status: 400,
      errors: [{ header: "if-none-match", message: "is not taken by this operation" }],
    });
  });
});
