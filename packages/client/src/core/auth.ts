// The credential headers of every request: X-API-Key, or Authorization: Bearer with a static
// token or one from getToken, which is asked once, kept, and asked again when the gateway
// answers 401 (the token expired). A credential only ever goes in a header, never in a URL.
import type { Credentials } from "./options.js";

export class Authenticator {
  readonly #credentials: Credentials;
  /** The token getToken gave last (or is giving: concurrent calls share one ask). */
  #token: Promise<string> | undefined;

  constructor(credentials: Credentials) {
    this.#credentials = credentials;
  }

  /** The headers that carry the credentials. */
  async headers(): Promise<Record<string, string>> {
    const { apiKey, token, getToken } = this.#credentials;
    if (apiKey !== undefined) return { "x-api-key": apiKey };
    if (token !== undefined) return { authorization: `Bearer ${token}` };
    if (getToken === undefined) return {};
    this.#token ??= Promise.resolve(getToken());
    const current = this.#token;
    try {
      return { authorization: `Bearer ${await current}` };
    } catch (error) {
      // A failed ask is not kept: the next call asks again.
      if (this.#token === current) this.#token = undefined;
      throw error;
    }
  }

  /**
   * After a 401 answered to a request sent with `sent` (the headers() it had): forgets that
   * token, so that the next headers() asks getToken again. False when there is nothing to
   * refresh (an API key, a static token): the 401 stands.
   */
  async refresh(sent: Readonly<Record<string, string>>): Promise<boolean> {
    if (this.#credentials.getToken === undefined) return false;
    const current = this.#token;
    // Another call may have refreshed it already since this one was sent.
    if (current !== undefined && `Bearer ${await current.catch(() => "")}` === sent.authorization) this.#token = undefined;
    return true;
  }
}
