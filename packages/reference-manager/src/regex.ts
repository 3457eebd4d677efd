// The regular expressions of a job search (id_filter.re, tag_filter.re) are RE2 syntax, run by
// re2js, a JavaScript port of RE2 (Go's regexp): matching takes time linear in the text, so no
// pattern backtracks catastrophically, whatever it is. Linear is still the pattern's program
// size times the text's length, so a program larger than MAX_PROGRAM_SIZE is refused, and the
// reference Manager runs searches with a regex off the event loop (scan-worker.ts).
//
// Semantics a client may notice, compared with a JavaScript RegExp without flags:
// - RE2 syntax (https://github.com/google/re2/wiki/Syntax): no backreferences (\1), no
//   lookahead or lookbehind, no \u0041 (write \x{41}), no \cA, no [^] (write (?s:.)); these are
//   INVALID_ARGUMENT. RE2 adds inline flags ((?i), (?s), (?m)), \p{Greek}, \x{10FFFF}, \z,
//   (?P<name>...), [[:alpha:]].
// - Matching is on Unicode code points, not UTF-16 code units: "." matches one emoji, where a
//   RegExp without the u flag sees two halves.
// - \d, \w, \b are ASCII (as in RegExp); \s is [\t\n\f\r ] (RegExp also takes \v and Unicode
//   spaces); "." matches anything but \n (RegExp also excludes \r, U+2028, U+2029).
// - Searched, not anchored, as RegExp.test: ^ and $ are the start and end of the whole value
//   unless (?m) is given.
// - A repeat count is at most 1000, nested counts included ((a{100}){100} is refused).
import { RE2JS, RE2JSException } from "re2js";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";

/** Longest pattern accepted, in UTF-16 code units. */
export const MAX_REGEX_LENGTH = 1000;

/**
 * Largest compiled program accepted, in RE2 instructions: matching costs up to this many steps
 * per character of text. 5000 leaves room for any realistic filter (^encoder-[0-9]+$ is 15)
 * and for counted repeats such as [a-z]{1000} (1002), and refuses patterns built to be slow,
 * such as (?:a?){1000} repeated (2000 each).
 */
export const MAX_PROGRAM_SIZE = 5000;

export interface Regex {
  /** True when the pattern matches somewhere in `text` (searched, not anchored). */
  test(text: string): boolean;
}

/** Compiles `source` for `field` ("id_filter.re"); throws GrpcError(INVALID_ARGUMENT) naming it. */
export function compileRegex(field: string, source: string): Regex {
  if (source.length > MAX_REGEX_LENGTH) {
    throw invalid(`${field}: regular expression is longer than ${MAX_REGEX_LENGTH} characters`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(source);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    throw invalid(`${field}: invalid regular expression (RE2 syntax: no backreferences or lookaround): ${error.message}`);
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    throw invalid(`${field}: regular expression is too complex: ${size} instructions compiled, at most ${MAX_PROGRAM_SIZE}`);
  }
  return { test: (text) => re.test(text) };
}

function invalid(message: string): GrpcError {
  return new GrpcError(Code.INVALID_ARGUMENT, message);
}
