// The id rule (src/lexical/ids.ts) in its two forms: idProblem, which the reference Manager applies,
// and the Id schema, which the gateway's validator applies to bodies and paths. They must
// agree on every string, or a record one side accepts could be out of the other's reach.
import { Ajv } from "ajv";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ID_PATTERN_MESSAGE, ID_RULE, idProblem } from "../../src/lexical/ids.js";
import { Id } from "../../../../schemas/common.js";

const TOO_LONG = "must be at most 256 characters (it has 257)";

describe("the id rule", () => {
  it("says what it refuses, in words a client can act on", () => {
    expect(ID_PATTERN_MESSAGE).toBe('must contain no control characters (U+0000-U+001F, U+007F-U+009F), not begin with U+FEFF and not be "." or ".."');
    expect(ID_RULE).toBe(
      '1-256 characters, no control characters, no leading U+FEFF, not "." or ".."; in a path, percent-encoded as by encodeURIComponent (a / is %2F).',
    );
  });

  it.each<[string, string, string | undefined]>([
    ["a plain id", "encoder-1", undefined],
    ["slashes, query and fragment marks, percent signs, spaces", "tenant/a?b#c%2F d+e", undefined],
    ["256 astral characters (512 UTF-16 units)", "\u{1F600}".repeat(256), undefined],
    ["dots that are not a whole dot segment", "...", undefined],
    ["a leading dot", ".hidden", undefined],
    ["a U+FEFF that does not lead", "a\ufeff", undefined],
    ["the empty id", "", "must not be empty"],
    ["257 characters", "x".repeat(257), TOO_LONG],
    ["257 astral characters", "\u{1F600}".repeat(257), TOO_LONG],
    ['"."', ".", ID_PATTERN_MESSAGE],
    ['".."', "..", ID_PATTERN_MESSAGE],
    ["a NUL", "a\u0000", ID_PATTERN_MESSAGE],
    ["a line feed", "a\nb", ID_PATTERN_MESSAGE],
    ["DEL", "a\u007f", ID_PATTERN_MESSAGE],
    ["a C1 control (NEL)", "a\u0085", ID_PATTERN_MESSAGE],
    ["a leading U+FEFF", "\ufeffa", ID_PATTERN_MESSAGE],
  ])("%s: %j", (_name, id, problem) => {
    expect(idProblem(id)).toBe(problem);
  });

  it("is the same rule as the Id schema, for the gateway's validator (fast-check)", () => {
    const validate = new Ajv({ strict: false }).compile(Id);
    const ids = fc.oneof(
      fc.string({ unit: "binary", maxLength: 260 }),
      fc.string({ unit: fc.constantFrom(".", "a", "\u0000", "\u0085", "\ufeff", "\u{1F600}"), maxLength: 4 }),
      fc.constantFrom(".", "..", "x".repeat(256), "x".repeat(257), "\u{1F600}".repeat(256), "\u{1F600}".repeat(257)),
    );
    fc.assert(
      fc.property(ids, (id) => {
        expect(validate(id)).toBe(idProblem(id) === undefined);
      }),
      { numRuns: 2000 },
    );
  });
});
