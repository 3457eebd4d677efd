// 64-bit integers and protobuf strings as text (src/lexical/scalars.ts): canonical decimals
// only, in range, and strings that UTF-8 can carry; with the words of each refusal.
import { describe, expect, it } from "vitest";
import { int64Problem, stringProblem } from "../../src/lexical/scalars.js";

const INT64 = "must be a decimal string of an int64 between -9223372036854775808 and 9223372036854775807";
const UINT64 = "must be a decimal string of an uint64 between 0 and 18446744073709551615";
const FORM = " (digits only, no sign on zero, no leading zeros or blanks)";

describe("int64Problem", () => {
  it.each([
    ["0", true],
    ["-9223372036854775808", true],
    ["9223372036854775807", true],
    ["0", false],
    ["18446744073709551615", false],
  ])("accepts %s (signed: %s)", (text, signed) => {
    expect(int64Problem(text, signed)).toBeUndefined();
  });

  it.each([
    ["-9223372036854775809", true, `${INT64}, out of range`],
    ["9223372036854775808", true, `${INT64}, out of range`],
    ["18446744073709551616", false, `${UINT64}, out of range`],
    ["-1", false, `${UINT64}${FORM}`],
    ["-0", true, `${INT64}${FORM}`],
    ["01", true, `${INT64}${FORM}`],
    ["12x", false, `${UINT64}${FORM}`],
    ["x12", false, `${UINT64}${FORM}`],
    ["12x", true, `${INT64}${FORM}`],
    ["x12", true, `${INT64}${FORM}`],
    [" 1", true, `${INT64}${FORM}`],
  ])("refuses %j (signed: %s)", (text, signed, message) => {
    expect(int64Problem(text, signed)).toBe(message);
  });
});

describe("stringProblem", () => {
  it("accepts any well-formed text, astral characters included", () => {
    expect(stringProblem("caf\u00e9 \u{1F600}")).toBeUndefined();
  });

  it.each(["\ud800", "a\udfffb"])("refuses a lone surrogate in %j, saying so", (text) => {
    expect(stringProblem(text)).toBe("must be valid Unicode (it contains a lone surrogate \\uD800-\\uDFFF)");
  });
});
