// What a bearer token must look like before anything is fetched or verified for it: a JWS in
// compact serialization (RFC 7515 §7.1: three base64url parts, the first a JSON object), at
// most MAX_TOKEN_LENGTH long, whose header names an algorithm of ALGORITHMS, no `crit`
// extension (the gateway implements none, and RFC 7515 §4.1.11 says to refuse what it does not
// understand), a string `kid` if any, and a `typ` of the accepted kinds (TOKEN_TYPES). Anything
// else is refused by the caller as a 401 (src/auth/jwt.ts) without the issuer's keys, so that no
// value a client makes up can make the gateway call the issuer.

/** The only algorithms accepted: asymmetric ones, so a public key can never serve as an HMAC secret. */
export const ALGORITHMS = ["RS256", "PS256", "ES256", "EdDSA"] as const;

/** The longest token looked at, in characters; a longer one is refused unread. */
export const MAX_TOKEN_LENGTH = 8_192;

/**
 * The `typ` a token's header may carry, by --auth-token-type (compared without case, and
 * without an `application/` prefix, RFC 7515 §4.1.9):
 * - `jwt`: RFC 9068's `at+jwt`, or `JWT`, or none, which is what many issuers send for their
 *   access tokens; any other typ names another kind of token (`logout+jwt`, `secevent+jwt`,
 *   `dpop+jwt`, `JOSE` ...), which is never an access token.
 * - `at+jwt`: RFC 9068's `at+jwt` only.
 */
export const TOKEN_TYPES = {
  jwt: [undefined, "jwt", "at+jwt"],
  "at+jwt": ["at+jwt"],
} as const satisfies Readonly<Record<string, readonly (string | undefined)[]>>;

export type TokenType = keyof typeof TOKEN_TYPES;

/** The default of --auth-token-type. */
export const DEFAULT_TOKEN_TYPE: TokenType = "jwt";

const BASE64URL = /^[A-Za-z0-9_-]+$/;
const ACCEPTED_ALGORITHMS: ReadonlySet<string> = new Set(ALGORITHMS);

/** Why `token` is not a JWS this gateway would verify, or undefined when it may be verified. */
export function malformation(token: string, tokenType: TokenType): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return `the token is longer than ${String(MAX_TOKEN_LENGTH)} characters`;
  const parts = token.split(".");
  if (parts.length !== 3) return `the token has ${String(parts.length)} parts, not the three of a JWS`;
  const [header = "", payload = "", signature = ""] = parts;
  if (!BASE64URL.test(header) || !BASE64URL.test(payload) || !BASE64URL.test(signature)) return "a part of the token is empty or not base64url";
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header, "base64url").toString("utf8"));
  } catch {
    return "the token's header is not JSON";
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return "the token's header is not a JSON object";
  return headerFault(parsed as Record<string, unknown>, tokenType);
}

function headerFault(header: Record<string, unknown>, tokenType: TokenType): string | undefined {
  const { alg, crit, kid, typ } = header;
  if (typeof alg !== "string" || !ACCEPTED_ALGORITHMS.has(alg)) return `the token's alg ${JSON.stringify(alg)} is not one of ${ALGORITHMS.join(", ")}`;
  if (crit !== undefined) return "the token's header names crit extensions, none of which the gateway implements";
  if (kid !== undefined && typeof kid !== "string") return "the token's kid is not a string";
  if (typ !== undefined && typeof typ !== "string") return "the token's typ is not a string";
  const type = typ?.toLowerCase().replace(/^application\//, "");
  if (!(TOKEN_TYPES[tokenType] as readonly (string | undefined)[]).includes(type)) return `the token's typ ${JSON.stringify(typ)} is not accepted (--auth-token-type ${tokenType})`;
  return undefined;
}
