// Fetches of the token issuer's JSON documents (its discovery document and its JWK Set), with
// a failure remembered: after a fetch fails (no answer, a timeout, a status other than 200, a
// body that is not the document wanted), every fetch within ISSUER_RETRY_AFTER_MS fails at once
// with the same reason, without a request to the issuer. So an issuer that is down is asked
// once per interval, not once per request that needs its keys; the gateway's 503s in the
// meantime say Retry-After with the same interval (src/auth/access.ts).

/** How long a failed fetch of the issuer's documents is remembered, in ms: the 503's Retry-After. */
export const ISSUER_RETRY_AFTER_MS = 5_000;

/** How long a fetch of the discovery document or the keys may take. */
export const ISSUER_FETCH_TIMEOUT_MS = 5_000;

export interface IssuerFetchOptions {
  /** The clock the remembered failure is judged by, in ms since the epoch. Default: Date.now. */
  readonly now?: (() => number) | undefined;
}

/** What a fetched document must be; throws an Error saying why it is not. */
export type DocumentCheck = (document: unknown) => void;

interface Failure {
  readonly untilMs: number;
  readonly reason: string;
}

export class IssuerFetch {
  private failure: Failure | undefined;
  private readonly now: () => number;

  constructor(options: IssuerFetchOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * The JSON document at `url`, once `check` accepts it; throws an Error saying why not (the
   * remembered one within ISSUER_RETRY_AFTER_MS of a failure, without fetching).
   */
  async json(url: URL | string, check: DocumentCheck = () => undefined, signal?: AbortSignal | null): Promise<unknown> {
    const remembered = this.failure;
    if (remembered !== undefined && this.now() < remembered.untilMs) throw new Error(remembered.reason);
    try {
      const document = await fetchJson(String(url), signal ?? AbortSignal.timeout(ISSUER_FETCH_TIMEOUT_MS));
      check(document);
      this.failure = undefined;
      return document;
    } catch (error) {
      this.failure = { untilMs: this.now() + ISSUER_RETRY_AFTER_MS, reason: reasonOf(error) };
      throw error;
    }
  }

  /** A fetch function for jose's createRemoteJWKSet: the JWK Set by json(), answered as a 200. */
  readonly jwksFetch = async (url: string, init: RequestInit): Promise<Response> => Response.json(await this.json(url, isKeySet, init.signal));
}

async function fetchJson(url: string, signal: AbortSignal): Promise<unknown> {
  // No redirects: the discovery document and the keys are at the addresses named.
  const response = await fetch(url, { signal, redirect: "manual", headers: { accept: "application/json" } });
  if (response.status !== 200) throw new Error(`${url} answered ${String(response.status)}`);
  try {
    return await response.json();
  } catch {
    throw new Error(`${url} is not JSON`);
  }
}

function isKeySet(document: unknown): void {
  if (typeof document !== "object" || document === null || !Array.isArray((document as { keys?: unknown }).keys)) throw new Error("the JWK Set has no keys array");
}

/** An error's message, and its cause's, for the log. */
export function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
  return `${error.message}${cause}`;
}
