// Bearer JWT access tokens (RFC 9068), verified with jose: first the token's form (src/auth/
// token-form.ts: a JWS whose header names an accepted alg and typ), with nothing fetched for a
// token that fails it; then the signature with the issuer's keys (discovered from
// --auth-issuer's /.well-known/openid-configuration, or named by --auth-jwks-url), only with an
// asymmetric algorithm of ALGORITHMS, then iss, aud, exp and nbf with a clock skew. The keys are
// cached and fetched again when a token names a key id the cache lacks, at most once per
// KEY_COOLDOWN_MS (jose's createRemoteJWKSet), so the issuer may rotate its keys while the
// gateway runs; a failed fetch is not tried again for ISSUER_RETRY_AFTER_MS
// (src/auth/issuer-fetch.ts). A token that fails any check is the client's fault (TokenRefused,
// a 401); keys that cannot be fetched are not (KeysUnavailable, a 503).
import { createRemoteJWKSet, customFetch, errors, jwtVerify } from "jose";
import type { JWTPayload } from "jose";
import { ISSUER_FETCH_TIMEOUT_MS, IssuerFetch, reasonOf } from "./issuer-fetch.js";
import { ALGORITHMS, DEFAULT_TOKEN_TYPE, MAX_TOKEN_LENGTH, malformation } from "./token-form.js";
import type { TokenType } from "./token-form.js";
import { TokenCache } from "./token-cache.js";

/** How soon after a fetch of the keys an unknown key id may fetch them again. */
export const KEY_COOLDOWN_MS = 5_000;

export interface JwtOptions {
  /** The issuer: the tokens' `iss`, and where the keys are discovered unless jwksUrl is given. */
  readonly issuer: string;
  /** The tokens' `aud` must include it. */
  readonly audience: string;
  /** The issuer's JWK Set. Default: the discovery document's jwks_uri. */
  readonly jwksUrl?: string | undefined;
  /** Leeway of exp and nbf, in seconds. */
  readonly clockSkewS: number;
  /** The claim holding the scopes. Default: `scope` (space-separated), else `scp` (an array). */
  readonly scopeClaim?: string | undefined;
  /** The most verified tokens cached (src/auth/token-cache.ts); 0 caches none. Default: TOKEN_CACHE_ENTRIES. */
  readonly tokenCacheEntries?: number | undefined;
  /** The `typ` a token may have (src/auth/token-form.ts, TOKEN_TYPES). Default: DEFAULT_TOKEN_TYPE. */
  readonly tokenType?: TokenType | undefined;
  /** The clock that exp, nbf, the cache and a failed fetch of the keys are judged by, in milliseconds since the epoch. Default: Date.now. */
  readonly now?: (() => number) | undefined;
}

/** What a verified token says. */
export interface VerifiedToken {
  /** `sub`, else `client_id`. */
  readonly subject: string;
  readonly scopes: ReadonlySet<string>;
  /** Its `exp` (required), in ms since the epoch. */
  readonly expiresAtMs: number;
}

/** The token is not one this gateway accepts; `reason` is for the debug log, never for the client. */
export class TokenRefused extends Error {
  override readonly name = "TokenRefused";
}

/** The issuer's keys (or its discovery document) cannot be fetched; `reason` for the log. */
export class KeysUnavailable extends Error {
  override readonly name = "KeysUnavailable";
}

/** Failures that say the token is wrong; any other failure of verification is the issuer's keys'. */
const TOKEN_FAULTS: ReadonlySet<string> = new Set([
  errors.JOSEAlgNotAllowed.code,
  errors.JOSENotSupported.code,
  errors.JWSInvalid.code,
  errors.JWTInvalid.code,
  errors.JWSSignatureVerificationFailed.code,
  errors.JWTExpired.code,
  errors.JWTClaimValidationFailed.code,
  errors.JWKSNoMatchingKey.code,
  errors.JWKSMultipleMatchingKeys.code,
  errors.JWKInvalid.code,
]);

type KeySet = ReturnType<typeof createRemoteJWKSet>;

export class JwtVerifier {
  private keySet: Promise<KeySet> | undefined;
  private readonly cache: TokenCache<VerifiedToken>;
  private readonly issuerFetch: IssuerFetch;
  private readonly tokenType: TokenType;

  constructor(private readonly options: JwtOptions) {
    this.cache = new TokenCache({ maxEntries: options.tokenCacheEntries, now: options.now });
    this.issuerFetch = new IssuerFetch({ now: options.now });
    this.tokenType = options.tokenType ?? DEFAULT_TOKEN_TYPE;
  }

  /** The token's subject and scopes; throws TokenRefused or KeysUnavailable. A token verified before and not yet expired is not verified again. */
  async verify(token: string): Promise<VerifiedToken> {
    // A cached token passed the form check when it was verified; one too long is not hashed.
    const cached = token.length <= MAX_TOKEN_LENGTH ? this.cache.get(token) : undefined;
    if (cached !== undefined) return cached;
    const fault = malformation(token, this.tokenType);
    if (fault !== undefined) throw new TokenRefused(fault);
    const keys = await this.keys();
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience,
        algorithms: [...ALGORITHMS],
        clockTolerance: this.options.clockSkewS,
        requiredClaims: ["exp"],
        ...(this.options.now === undefined ? {} : { currentDate: new Date(this.options.now()) }),
      }));
    } catch (error) {
      if (error instanceof errors.JOSEError && TOKEN_FAULTS.has(error.code)) throw new TokenRefused(`${error.code}: ${error.message}`);
      throw new KeysUnavailable(reasonOf(error));
    }
    const subject = typeof payload.sub === "string" ? payload.sub : typeof payload.client_id === "string" ? payload.client_id : undefined;
    if (subject === undefined || subject === "") throw new TokenRefused("the token has neither sub nor client_id");
    const verified: VerifiedToken = { subject, scopes: scopesOf(payload, this.options.scopeClaim), expiresAtMs: (payload.exp ?? 0) * 1000 };
    // requiredClaims makes exp present and a number.
    this.cache.set(token, verified, { exp: payload.exp ?? 0, nbf: payload.nbf, clockSkewS: this.options.clockSkewS });
    return verified;
  }

  /** The key set, once its URL is known; a failed discovery is tried again by a request after ISSUER_RETRY_AFTER_MS. */
  private keys(): Promise<KeySet> {
    this.keySet ??= this.jwksUrl().then(
      (url) => createRemoteJWKSet(url, { cooldownDuration: KEY_COOLDOWN_MS, timeoutDuration: ISSUER_FETCH_TIMEOUT_MS, [customFetch]: this.issuerFetch.jwksFetch }),
      (error: unknown) => {
        this.keySet = undefined;
        throw new KeysUnavailable(reasonOf(error));
      },
    );
    return this.keySet;
  }

  /** --auth-jwks-url, or the jwks_uri of the issuer's discovery document (OpenID Connect Discovery 1.0, §4). */
  private async jwksUrl(): Promise<URL> {
    if (this.options.jwksUrl !== undefined) return new URL(this.options.jwksUrl);
    const { issuer } = this.options;
    const discovery = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
    const document = await this.issuerFetch.json(discovery, (fetched) => {
      if (typeof fetched !== "object" || fetched === null) throw new Error(`${discovery} is not a JSON object`);
      const { issuer: named, jwks_uri: jwksUri } = fetched as { issuer?: unknown; jwks_uri?: unknown };
      // §4.3: the document must name the issuer it was fetched for.
      if (named !== issuer) throw new Error(`${discovery} names the issuer ${JSON.stringify(named)}, not ${JSON.stringify(issuer)}`);
      if (typeof jwksUri !== "string" || !/^https?:\/\//.test(jwksUri)) throw new Error(`${discovery} has no http(s) jwks_uri`);
    });
    return new URL((document as { jwks_uri: string }).jwks_uri);
  }
}

/** The scopes a token carries: the named claim, else `scope` (space-separated), else `scp`; a string or an array of strings. */
function scopesOf(payload: JWTPayload, claim: string | undefined): ReadonlySet<string> {
  const value = claim === undefined ? (payload.scope ?? payload.scp) : payload[claim];
  if (typeof value === "string") return new Set(value.split(" ").filter((scope) => scope !== ""));
  if (Array.isArray(value)) return new Set(value.filter((scope): scope is string => typeof scope === "string"));
  return new Set();
}
