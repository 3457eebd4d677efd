// Credentials in a URL's query string: the gateway reads none (a bearer token goes in
// Authorization, an API key in X-API-Key), but a client may still put one there, and a URL is
// what logs, proxies and histories keep. CREDENTIAL_PARAMETERS is the one list of the names
// taken for credentials: their values are never written to the log (redactedUrl, for every log
// line that carries a URL) nor echoed in a problem's instance (src/http/problem.ts).

/** The query parameter RFC 6750 ("URI Query Parameter") defines for a bearer token; the gateway never reads a token from it. */
export const QUERY_TOKEN = "access_token";

/**
 * The query parameters taken for credentials, compared without case once percent-decoded: the
 * OAuth tokens and client secret, the names API keys go by, and plain secrets. No parameter of
 * the gateway's own routes is among them (`pageToken` is not `token`).
 */
export const CREDENTIAL_PARAMETERS: ReadonlySet<string> = new Set([
  QUERY_TOKEN,
  "id_token",
  "refresh_token",
  "token",
  "client_secret",
  "api_key",
  "apikey",
  "api-key",
  "x-api-key",
  "key",
  "authorization",
  "password",
  "secret",
]);

/** What a credential's value is written as. */
export const REDACTED = "[REDACTED]";

/** Whether the query of `url` has a parameter of CREDENTIAL_PARAMETERS. */
export function carriesCredential(url: string): boolean {
  const query = url.indexOf("?");
  return query !== -1 && url.slice(query + 1).split("&").some((pair) => isCredential(pair));
}

/** `url` with the value of each parameter of CREDENTIAL_PARAMETERS replaced by REDACTED; the rest as it was. */
export function redactedUrl(url: string): string {
  const query = url.indexOf("?");
  if (query === -1) return url;
  const pairs = url.slice(query + 1).split("&");
  if (!pairs.some((pair) => isCredential(pair))) return url;
  const redacted = pairs.map((pair) => (isCredential(pair) ? `${pair.slice(0, nameEnd(pair))}=${REDACTED}` : pair));
  return `${url.slice(0, query + 1)}${redacted.join("&")}`;
}

function nameEnd(pair: string): number {
  const equals = pair.indexOf("=");
  return equals === -1 ? pair.length : equals;
}

/** Whether `pair` (name=value, as in the URL) names a credential, its name decoded as URLSearchParams decodes it. */
function isCredential(pair: string): boolean {
  const raw = pair.slice(0, nameEnd(pair));
  let name = raw.replaceAll("+", " ");
  try {
    name = decodeURIComponent(name);
  } catch {
    // Not valid percent-encoding: compared as it is.
  }
  return CREDENTIAL_PARAMETERS.has(name.toLowerCase());
}
