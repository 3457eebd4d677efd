// A real OpenID provider (npm oidc-provider, a certified implementation) on loopback, issuing
// RFC 9068 JWT access tokens by client credentials for one resource (the gateway's audience),
// with signing keys the test may rotate or take down while a gateway relies on it. The test
// keeps the private keys, to forge tokens the provider would never issue. Every request it
// receives is counted (`requests`), and it can be made to answer every request with an error
// status instead (`failWith`), as an issuer whose discovery fails does. The provider itself is
// the one `npm run dev-issuer` serves (scripts/oidc-provider.ts).
import { createServer } from "node:http";
import type { Server } from "node:http";
import { close, handlerOf, listen, listeningServer, providerOf } from "../../scripts/oidc-provider.js";
import type { SigningKey } from "../../scripts/oidc-provider.js";

export { signingKey } from "../../scripts/oidc-provider.js";
export type { SigningKey } from "../../scripts/oidc-provider.js";

export const AUDIENCE = "https://gateway.test/api";
export const CLIENT_ID = "ci-pipeline";
const CLIENT_SECRET = "a-client-secret-long-enough-for-the-provider";

export interface Issuer {
  /** The issuer identifier: http://127.0.0.1:<port> */
  readonly url: string;
  /** The key tokens are signed with now. */
  readonly current: SigningKey;
  /** An access token with `scope` (space-separated), issued by client credentials. */
  token(scope: string): Promise<string>;
  /** Serves again on the same port with `keys` (the first signs; the others stay published). */
  rotate(keys: readonly SigningKey[]): Promise<void>;
  /** The path (and query) of every request the issuer received, in order, a failed one included. */
  readonly requests: readonly string[];
  /** From now on answers every request with `status` (a 500: an issuer whose discovery fails); undefined: serves again. */
  failWith(status: number | undefined): void;
  /** Stops answering (the port is closed); start() answers again with the same keys. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export interface IssuerOptions {
  /** How long an access token it issues is valid, in seconds. Default: 300. */
  readonly accessTokenTtlS?: number;
}

export async function startIssuer(initial: readonly SigningKey[], { accessTokenTtlS = 300 }: IssuerOptions = {}): Promise<Issuer> {
  let keys = initial;
  const opened = await listeningServer(0);
  let server: Server = opened.server;
  const { port } = opened;
  const url = `http://127.0.0.1:${String(port)}`;
  const requests: string[] = [];
  let failing: number | undefined;
  const serve = (): void => {
    const handle = handlerOf(providerOf({ issuer: url, audience: AUDIENCE, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, keys, accessTokenTtlS }));
    server.on("request", (request, response) => {
      requests.push(request.url ?? "");
      if (failing === undefined) {
        handle(request, response);
        return;
      }
      response.writeHead(failing, { "content-type": "text/plain" }).end("the issuer is failing");
    });
  };
  serve();
  const stop = () => close(server);
  const start = async () => {
    server = createServer();
    serve();
    await listen(server, port);
  };
  return {
    url,
    requests,
    failWith: (status) => {
      failing = status;
    },
    get current() {
      const [first] = keys;
      if (first === undefined) throw new Error("no keys");
      return first;
    },
    token: async (scope) => {
      // A connection this process kept alive to the provider's previous server is closed: a new one is made.
      const post = () => fetch(`${url}/token`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", authorization: `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString("base64")}` },
        body: new URLSearchParams({ grant_type: "client_credentials", scope, resource: AUDIENCE }).toString(),
      });
      const response = await post().catch(post);
      const body = (await response.json()) as { access_token?: string; error?: string; error_description?: string };
      if (body.access_token === undefined) throw new Error(`the provider issued no token: ${JSON.stringify(body)}`);
      return body.access_token;
    },
    rotate: async (next) => {
      await stop();
      keys = next;
      await start();
    },
    stop,
    start,
    close: stop,
  };
}
