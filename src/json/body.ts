// Reads a request body as JSON, strictly (docs/architecture.md, "JSON rules"). JSON.parse alone is
// lenient where a gateway must not be: it keeps the last of two equal keys
// ({"jobId":"a","jobId":"b"}
// is stored as "b"), and text decoded from invalid UTF-8 carries U+FFFD instead of the bytes
// sent. So the bytes are checked to be UTF-8 first and parsed once with JSON.parse; then the
// keys the text writes are counted (a search for `":` over it) against the keys the value holds
// (one walk over it), which can only agree when no key was repeated. This is the path of
// every PUT and POST, so only a body that fails that count, or holds a prototype-poisoning key
// (__proto__, constructor.prototype), is scanned key by key to point at each offender.
//
// Every step is bounded by the body's length whatever it holds: nesting deeper than MAX_DEPTH
// is refused by a scan before JSON.parse (which would otherwise build the whole tower, and
// every pointer into it), and the key scan stops at the first offender past the list's
// capacity (MAX_LISTED_ISSUES), so a body of a hundred thousand repeats is one short answer.
import { isUtf8 } from "node:buffer";
import { Issues, MirrorError, childPointer } from "./errors.js";
import type { MirrorIssue } from "./errors.js";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const BOM = 0xfeff;

/**
 * The deepest nesting of arrays and objects a body may have. A job nests seven deep (a
 * service's port mapping); the margin is for what later versions add, and the bound keeps
 * every walk of the value (here, in validation, in the mirror) short and its pointers short.
 */
export const MAX_DEPTH = 32;

/** A body that is not acceptable JSON: `detail` says how, the issues say where. */
export class JsonBodyError extends MirrorError {
  constructor(
    readonly detail: string,
    errors: readonly MirrorIssue[],
    notListed = 0,
  ) {
    super(errors, notListed);
  }
}

/**
 * The JSON value of `bytes`; throws a JsonBodyError listing what is wrong (pointer "" for the
 * body as a whole). A leading byte order mark is ignored, as RFC 8259 §8.1 allows.
 */
export function parseJsonBody(bytes: Buffer): unknown {
  if (bytes.length === 0) throw whole("the request body is empty", "is empty; a JSON document is required");
  if (!isUtf8(bytes)) throw whole("the request body is not valid UTF-8", `is not valid UTF-8 (at byte ${firstInvalidUtf8(bytes)})`);
  let text = bytes.toString("utf8");
  if (text.charCodeAt(0) === BOM) text = text.slice(1);
  const tooDeep = depthExceededAt(text);
  if (tooDeep !== -1) {
    throw whole(`the request body nests arrays and objects deeper than ${MAX_DEPTH}`, `nests deeper than ${MAX_DEPTH} arrays and objects (at character ${tooDeep})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw whole("the request body is not valid JSON", syntaxMessage(error));
  }
  // Equal counts prove that no key was repeated: keysWritten never counts too few. Anything
  // else (a repeat, a poisoning key, a count that could not be made) gets the exact scan.
  if (keysWritten(text) !== keysKept(value)) {
    const issues = new Issues();
    checkKeys(text, issues);
    if (issues.any) throw new JsonBodyError("the request body repeats a key or has a forbidden one", issues.list, issues.notListed);
  }
  return value;
}

function whole(detail: string, message: string): JsonBodyError {
  return new JsonBodyError(detail, [{ pointer: "", message }]);
}

/** "is not valid JSON", with V8's position when its message has one (the message itself may quote the input). */
function syntaxMessage(error: unknown): string {
  const position = error instanceof Error ? /at position (\d+)/.exec(error.message)?.[1] : undefined;
  return position === undefined ? "is not valid JSON" : `is not valid JSON (at character ${position})`;
}

/**
 * The offset of the bracket that opens a container deeper than MAX_DEPTH, or -1. Only brackets
 * outside strings count; the text may not be JSON at all (JSON.parse judges that next), so a
 * string left open ends the scan.
 */
function depthExceededAt(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i === -1) return -1;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth > MAX_DEPTH) return i;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--;
    }
  }
  return -1;
}

/** A key whose closing quote is separated from its colon by whitespace (which JSON.stringify never writes). */
const SPACED_KEY_END = /"[\t\n\r ]+:/;

/**
 * At least as many keys as `text`, which JSON.parse has accepted, writes (repeats and all),
 * or NaN. Every key ends in an unescaped quote and a colon; so does a string value that begins
 * with a colon, which makes the count too high (and sends the body to the exact scan), never
 * too low. A key with whitespace before its colon would be missed, so such a text is not
 * counted at all.
 */
function keysWritten(text: string): number {
  if (SPACED_KEY_END.test(text)) return NaN;
  let count = 0;
  for (let at = text.indexOf('":'); at !== -1; at = text.indexOf('":', at + 2)) {
    if (!isEscaped(text, at)) count++;
  }
  return count;
}

/**
 * How many keys the parsed `value` holds: fewer than were written when a key was repeated (the
 * last one won). NaN, which no count equals, when a prototype-poisoning key is among them. Its
 * recursion is as deep as the value, at most MAX_DEPTH.
 */
function keysKept(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  if (Array.isArray(value)) {
    for (const element of value) count += keysKept(element);
    return count;
  }
  const object = value as Record<string, unknown>;
  // Own keys only: an inherited one (were Object.prototype ever given an enumerable property)
  // would make up for a repeat.
  for (const key of Object.keys(object)) {
    const member = object[key];
    if (key === "__proto__" || (key === "constructor" && typeof member === "object" && member !== null && Object.hasOwn(member, "prototype"))) {
      return NaN;
    }
    count += 1 + keysKept(member);
  }
  return count;
}

/** One open object or array of the scan: the keys seen so far, and where inside it the scan is. */
interface Container {
  /** Undefined for an array. */
  readonly keys: Set<string> | undefined;
  /** The key whose value is being read (object), or the index of the element (array). */
  at: string | number;
  /** The pointer to this container itself. */
  readonly pointer: string;
}

/**
 * Adds an issue for each repeated or prototype-poisoning key of `text`, which JSON.parse has
 * accepted: only strings, brackets and commas matter then, and a string is a key exactly when
 * it comes first in an object or right after a comma in one. Stops once `issues` is full.
 */
function checkKeys(text: string, issues: Issues): void {
  const open: Container[] = [];
  let top: Container | undefined;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (expectKey && top?.keys !== undefined) {
        const key = keyAt(text, i, end);
        const fault = keyFault(top.keys, key, open);
        if (fault !== undefined) {
          issues.add(childPointer(top.pointer, key), fault);
          if (issues.full) return;
        }
        top.keys.add(key);
        top.at = key;
        expectKey = false;
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      const pointer = top === undefined ? "" : childPointer(top.pointer, top.at);
      top = { keys: c === OPEN_OBJECT ? new Set() : undefined, at: 0, pointer };
      open.push(top);
      expectKey = c === OPEN_OBJECT;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
      top = open.at(-1);
      expectKey = false;
    } else if (c === COMMA && top !== undefined) {
      if (top.keys === undefined) top.at = (top.at as number) + 1;
      else expectKey = true;
    }
  }
}

/** Why `key`, in the innermost of the `open` containers, is refused; undefined when it is fine. */
function keyFault(seen: ReadonlySet<string>, key: string, open: readonly Container[]): string | undefined {
  if (seen.has(key)) return "is a repeated key (each name may appear once in an object)";
  if (key === "__proto__") return "is not allowed (a prototype-poisoning key)";
  if (key === "prototype" && open.at(-2)?.at === "constructor") return "is not allowed (constructor.prototype poisons prototypes)";
  return undefined;
}

/** The index of the quote that closes the string opening at `start`, or -1 when none does. */
function closingQuote(text: string, start: number): number {
  let end = text.indexOf('"', start + 1);
  while (end !== -1 && isEscaped(text, end)) end = text.indexOf('"', end + 1);
  return end;
}

/** True when the character at `index` follows an odd number of backslashes. */
function isEscaped(text: string, index: number): boolean {
  let backslashes = 0;
  for (let j = index - 1; text.charCodeAt(j) === BACKSLASH; j--) backslashes++;
  return backslashes % 2 === 1;
}

/** The key of the string between quotes `start` and `end`, escapes resolved ("\u0061" is "a"). */
function keyAt(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end);
  return raw.includes("\\") ? (JSON.parse(text.slice(start, end + 1)) as string) : raw;
}

/** The offset of the first byte that is not part of a well-formed UTF-8 sequence (RFC 3629). */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceLength(bytes, i);
    if (length === 0) return i;
    i += length;
  }
  return bytes.length;
}

/** The length of the well-formed sequence starting at `i`, or 0 when there is none. */
function sequenceLength(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i] ?? 0;
  if (b0 < 0x80) return 1;
  // The second byte's range depends on the first: no overlong forms, no surrogates, nothing above U+10FFFF.
  const [length, low, high] =
    b0 >= 0xc2 && b0 <= 0xdf ? [2, 0x80, 0xbf]
    : b0 === 0xe0 ? [3, 0xa0, 0xbf]
    : b0 === 0xed ? [3, 0x80, 0x9f]
    : b0 >= 0xe1 && b0 <= 0xef ? [3, 0x80, 0xbf]
    : b0 === 0xf0 ? [4, 0x90, 0xbf]
    : b0 >= 0xf1 && b0 <= 0xf3 ? [4, 0x80, 0xbf]
    : b0 === 0xf4 ? [4, 0x80, 0x8f]
    : [0, 0, 0];
  if (length === 0) return 0;
  const b1 = bytes[i + 1] ?? 0;
  if (b1 < low || b1 > high) return 0;
  for (let k = 2; k < length; k++) {
    const b = bytes[i + k] ?? 0;
    if (b < 0x80 || b > 0xbf) return 0;
  }
  return length;
}
