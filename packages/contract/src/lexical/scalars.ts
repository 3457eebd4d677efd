// 64-bit integers and protobuf strings as text (docs/architecture.md, "JSON rules"). A leaf: the
// schemas' formats and the mirror's codecs both check them here, so neither imports the other.

export const INT64 = { name: "int64", min: -(2n ** 63n), max: 2n ** 63n - 1n } as const;
export const UINT64 = { name: "uint64", min: 0n, max: 2n ** 64n - 1n } as const;

// Canonical decimals only: no leading zeros, no "-0", no "+", no blanks, no exponent. The
// output never has them either, so accepting them would break JSON → protobuf → JSON.
const SIGNED_DECIMAL = /^(?:0|-?[1-9][0-9]*)$/;
const UNSIGNED_DECIMAL = /^(?:0|[1-9][0-9]*)$/;

// A lone UTF-16 surrogate cannot be encoded as UTF-8: protobuf would replace it with U+FFFD.
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `text` is not a canonical decimal 64-bit integer, or undefined when it is one. */
export function int64Problem(text: string, signed: boolean): string | undefined {
  const t = signed ? INT64 : UINT64;
  const expected = `must be a decimal string of an ${t.name} between ${t.min} and ${t.max}`;
  if (!(signed ? SIGNED_DECIMAL : UNSIGNED_DECIMAL).test(text)) {
    return `${expected} (digits only, no sign on zero, no leading zeros or blanks)`;
  }
  const value = BigInt(text);
  return value < t.min || value > t.max ? `${expected}, out of range` : undefined;
}

/** Why a string cannot be a protobuf string, or undefined. */
export function stringProblem(text: string): string | undefined {
  return LONE_SURROGATE.test(text) ? "must be valid Unicode (it contains a lone surrogate \\uD800-\\uDFFF)" : undefined;
}
