// The one rule for the ids that HTTP paths address: job ids, node ids (cloud and physical) and
// instance roles. Whatever is created must be reachable by GET, PUT and DELETE of its path, so
// the same rule applies at creation and in the path: schemas/common.ts turns it into the
// schema both use, and the reference Manager enforces it at creation (the reference Manager's errors.ts),
// since other clients create records there directly.
//
// - 1 to 256 characters (Unicode code points, as JSON Schema counts them). Percent-encoded,
//   256 characters take at most 3072 bytes of a path (12 per code point, "%F0%9F%98%80"), so
//   three ids fit in one request line, far below Node's 16 KiB header limit and fastify's
//   maxParamLength (2048 characters, counted after decoding: at most 512 UTF-16 units here).
// - No control characters (U+0000-U+001F, U+007F-U+009F): they can be sent percent-encoded,
//   but have no use in an id and make every log line and header that shows one a hazard.
// - Not "." or "..": URL parsers (WHATWG, so fetch and browsers, and curl) resolve such a path
//   segment away, even as %2E%2E, so the record would be out of reach.
// - Not beginning with U+FEFF: protobuf-es decodes strings with a TextDecoder that drops a
//   leading byte-order mark, so the Manager would store the record under another id. (So the
//   reference Manager, which decodes with protobuf-es, never sees one: this part is the
//   gateway's to check.)
// Every other character is fine, "/" "?" "#" "%" and spaces included, percent-encoded in a path
// as encodeURIComponent does (tenant/a is /v1/jobs/tenant%2Fa). Lone surrogates cannot be
// protobuf strings at all; the JSON mirror refuses them in a body.

export const ID_MAX_LENGTH = 256;

/** JSON Schema `pattern` of the rule's characters (ECMA-262, with or without the u flag). */
export const ID_PATTERN = "^(?!\\.\\.?$)(?!\\uFEFF)[^\\u0000-\\u001F\\u007F-\\u009F]+$";

export const ID_PATTERN_MESSAGE =
  'must contain no control characters (U+0000-U+001F, U+007F-U+009F), not begin with U+FEFF and not be "." or ".."';

/** The rule in one sentence, for API descriptions. */
export const ID_RULE =
  `1-${ID_MAX_LENGTH} characters, no control characters, no leading U+FEFF, not "." or ".."; ` +
  "in a path, percent-encoded as by encodeURIComponent (a / is %2F).";

const CHARACTERS = new RegExp(ID_PATTERN, "u");

/** What is wrong with `id` under the rule, or undefined when it follows it. */
export function idProblem(id: string): string | undefined {
  if (id === "") return "must not be empty";
  let length = 0;
  for (const _ of id) length++;
  if (length > ID_MAX_LENGTH) return `must be at most ${ID_MAX_LENGTH} characters (it has ${length})`;
  return CHARACTERS.test(id) ? undefined : ID_PATTERN_MESSAGE;
}
