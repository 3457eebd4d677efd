// Media types as HTTP headers carry them: the bare type of a Content-Type, and how much an
// Accept header wants a type (RFC 9110 §12.5.1). One parser for every route that negotiates.

export const JSON_TYPE = "application/json";
export const MERGE_PATCH_TYPE = "application/merge-patch+json";
export const JSON_PATCH_TYPE = "application/json-patch+json";
export const NDJSON = "application/x-ndjson";
export const SSE = "text/event-stream";

/** The type/subtype of a Content-Type, lower-cased, parameters (charset) aside; "" when absent. */
export function mediaType(contentType: string | undefined): string {
  return (contentType ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** How much an Accept header wants something: the highest q among the ranges that name it, and where the first such range stands. */
export interface Preference {
  /** -1 when no range names it; 0 means "not acceptable". */
  readonly q: number;
  /** The index of the first range with that q; Infinity when none. */
  readonly at: number;
}

/**
 * The preference of `accept` for what `matches` recognises among its ranges ("application/json",
 * "*\/*", ...). A range whose q is not a number is ignored.
 */
export function preference(accept: string, matches: (range: string) => boolean): Preference {
  let best: Preference = { q: -1, at: Infinity };
  accept.split(",").forEach((part, at) => {
    const [range = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (!Number.isNaN(q) && matches(range) && q > best.q) best = { q, at };
  });
  return best;
}

/**
 * How much `accept` wants `type` (a bare type/subtype): the q of the most specific range that
 * matches it (RFC 9110 §12.5.1: "text/csv;q=0" refuses text/csv even beside "*\/*"), 0 when
 * none does. A range whose q is not a number between 0 and 1 is ignored.
 */
export function acceptQ(accept: string, type: string): number {
  const [major = ""] = type.split("/");
  let specificity = 0;
  let q = 0;
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const rangeQ = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(rangeQ) || rangeQ < 0 || rangeQ > 1) continue;
    const rank = range === type ? 3 : range === `${major}/*` ? 2 : range === "*/*" ? 1 : 0;
    if (rank > specificity) {
      specificity = rank;
      q = rangeQ;
    } else if (rank === specificity && rank > 0) {
      q = Math.max(q, rangeQ);
    }
  }
  return q;
}

/** True when `accept` (absent or blank: anything) admits at least one of `types`. */
export function admitsAny(accept: string | undefined, types: readonly string[]): boolean {
  if (accept === undefined || accept.trim() === "") return true;
  return types.some((type) => acceptQ(accept, type) > 0);
}
