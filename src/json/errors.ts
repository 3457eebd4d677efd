// Errors of the JSON mirror. Reading JSON collects every problem it finds (a client fixing a
// request body wants the whole list, not one error per round trip) and throws them together
// as one MirrorError whose items are RFC 6901 JSON Pointers into the input, ready to become the
// `errors` of an RFC 9457 problem.
import { MAX_LISTED_ISSUES } from "../../schemas/common.js";

/** One thing wrong with a JSON value: where (JSON Pointer into the input) and what. */
export interface MirrorIssue {
  readonly pointer: string;
  readonly message: string;
}

// Said once, with the problem's schema, which documents it.
export { MAX_LISTED_ISSUES };

export class MirrorError extends Error {
  override readonly name = "MirrorError";
  /** At most MAX_LISTED_ISSUES. */
  readonly errors: readonly MirrorIssue[];
  /** How many more were found and not listed; the finder may have stopped at the first of them. */
  readonly notListed: number;

  constructor(errors: readonly MirrorIssue[], notListed = 0) {
    const listed = errors.slice(0, MAX_LISTED_ISSUES);
    const more = notListed + errors.length - listed.length;
    const first = listed[0];
    const head = first === undefined ? "invalid value" : `${first.pointer || "(root)"}: ${first.message}`;
    const rest = listed.length - 1 + more;
    super(rest > 0 ? `${head} (and ${rest} more)` : head);
    this.errors = listed;
    this.notListed = more;
  }
}

/**
 * Collects issues while a value is read, listing MAX_LISTED_ISSUES at most and counting the
 * rest; `throwIfAny` turns them into one MirrorError. A reader may stop once `full`.
 */
export class Issues {
  readonly list: MirrorIssue[] = [];
  /** Issues added past the list's capacity. */
  notListed = 0;

  add(pointer: string, message: string): void {
    if (this.list.length < MAX_LISTED_ISSUES) this.list.push({ pointer, message });
    else this.notListed++;
  }

  /** True once an issue could not be listed: reading further only adds to a count. */
  get full(): boolean {
    return this.notListed > 0;
  }

  get any(): boolean {
    return this.list.length > 0;
  }

  throwIfAny(): void {
    if (this.any) throw new MirrorError(this.list, this.notListed);
  }
}

/** Marks a value that could not be read; its issues are already recorded. */
export const INVALID: unique symbol = Symbol("invalid");
export type Invalid = typeof INVALID;

/** One reference token of a JSON Pointer: "~" and "/" escaped as RFC 6901 §3 says. */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

export function childPointer(pointer: string, token: string | number): string {
  return `${pointer}/${typeof token === "number" ? String(token) : escapeToken(token)}`;
}

/**
 * Writing JSON fails only on values no JSON can carry (a timestamp outside 0001..9999 from a
 * misbehaving Manager). That is not the client's doing, so it is not a MirrorError (a 400): it
 * is answered as the gateway's 502 (src/http/status.ts, BAD_GATEWAY), its items, pointers into
 * the output, for the log only.
 */
export class UnrepresentableError extends Error {
  override readonly name = "UnrepresentableError";
  readonly errors: readonly MirrorIssue[];

  constructor(errors: readonly MirrorIssue[]) {
    const first = errors[0];
    super(first === undefined ? "a value JSON cannot carry" : `${first.pointer || "(root)"}: ${first.message}`);
    this.errors = errors;
  }
}

/**
 * Each container on the way out prefixes its token to an UnrepresentableError, so the error
 * names the place in the output, like input errors do.
 */
export function prefixed(error: unknown, token: string | number): unknown {
  if (!(error instanceof UnrepresentableError)) return error;
  return new UnrepresentableError(
    error.errors.map((e) => ({ pointer: `${childPointer("", token)}${e.pointer}`, message: e.message })),
  );
}

/** Set an own data property even when the key is "__proto__", never touching a prototype. */
export function setOwn<V>(target: Record<string, V>, key: string, value: V): void {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    target[key] = value;
  }
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A short description of a JSON value's type for messages: "a number", "null", "an array". */
export function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  switch (typeof value) {
    case "string":
      return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
    case "number":
      return `the number ${String(value)}`;
    case "boolean":
      return `the boolean ${String(value)}`;
    case "object":
      return "an object";
    default:
      return typeof value;
  }
}
