// Entity tags and conditional requests for jobs (docs/architecture.md, "Versions and
// preconditions"; RFC 9110, Conditional Requests). A job's ETag is its currentHash, quoted:
// "-9223372036854775808".
// Only strong tags name a hash. This file reads the headers; what a write does with them is in
// src/operations/ (job-access.ts and the job-* files).
import { STRONG_ENTITY_TAG } from "norsk-manager-contract/lexical/entity-tag.js";
import { invalidArgument } from "./problem.js";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

export function etagOf(hash: bigint): string {
  return `"${hash.toString()}"`;
}

/** What If-Match asks for: nothing, any current job (`*`), a hash, or a tag that can never match. */
export type IfMatch =
  | { readonly kind: "none" }
  | { readonly kind: "any" }
  | { readonly kind: "hash"; readonly hash: bigint }
  | { readonly kind: "never" };

const STRONG_TAG = new RegExp(STRONG_ENTITY_TAG);
const WEAK_TAG = /^W\/"[\x21\x23-\x7e]*"$/;

/**
 * Parses If-Match. One tag (or `*`) is supported, since the Manager's test-and-set takes one
 * hash; several tags, or anything that is not an entity tag, is a 400. A weak tag never matches
 * (If-Match uses strong comparison), so it is a precondition that fails, not a syntax error.
 */
export function parseIfMatch(value: string | undefined): IfMatch {
  if (value === undefined) return { kind: "none" };
  const trimmed = value.trim();
  if (trimmed === "*") return { kind: "any" };
  if (WEAK_TAG.test(trimmed)) return { kind: "never" };
  const hash = hashOfTag(trimmed);
  if (hash === undefined) {
    throw invalidArgument('If-Match must be one entity tag such as "123" (the job\'s ETag) or *', {
      errors: [{ header: "if-match", message: "is not a single strong entity tag of a job" }],
    });
  }
  return { kind: "hash", hash };
}

function hashOfTag(tag: string): bigint | undefined {
  const match = STRONG_TAG.exec(tag);
  if (match?.[1] === undefined) return undefined;
  const hash = BigInt(match[1]);
  return hash < INT64_MIN || hash > INT64_MAX ? undefined : hash;
}

/** How a PUT that creates only is asked for, and the only If-None-Match a write takes. */
const CREATE_ONLY = "*";

/**
 * If-None-Match on PUT: true for `*`, "only if the job does not exist" (RFC 9110, If-None-Match),
 * false when absent. Any other value would ask "unless the job's ETag is one of these", which
 * the Manager cannot test with the write (UpdateJob tests equality only): a 400, not ignored.
 */
export function isCreateOnly(value: string | undefined): boolean {
  if (value === undefined) return false;
  if (value.trim() === CREATE_ONLY) return true;
  throw invalidArgument("If-None-Match on PUT must be * (create the job only if it does not exist)", {
    errors: [{ header: "if-none-match", message: "must be *" }],
  });
}

/**
 * A write other than PUT (PATCH, DELETE, complete) takes no If-None-Match: `*` there could only
 * fail or race with a create, and a list of tags cannot be tested with the write. A 400 when
 * present, rather than the write made as if it were not.
 */
export function refuseIfNoneMatch(value: string | undefined): void {
  if (value === undefined) return;
  throw invalidArgument("If-None-Match is not taken by this write; only PUT takes it, as * (create only)", {
    errors: [{ header: "if-none-match", message: "is not taken by this operation" }],
  });
}

/**
 * If-None-Match on GET: true when one of the listed tags (weak comparison) or `*` matches, so the
 * answer is 304. Malformed members are ignored, as a cache's header should not break a read.
 */
export function noneMatch(value: string | undefined, hash: bigint): boolean {
  if (value === undefined) return false;
  const current = hash.toString();
  return value.split(",").some((raw) => {
    const tag = raw.trim();
    if (tag === "*") return true;
    const opaque = tag.startsWith("W/") ? tag.slice(2) : tag;
    return opaque === `"${current}"`;
  });
}
