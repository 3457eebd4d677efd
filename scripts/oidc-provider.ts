// An OpenID provider (npm oidc-provider, a certified implementation) that issues RFC 9068 JWT
// access tokens by the client credentials grant, for one resource (a gateway's audience) and
// the gateway's scopes, served on loopback. One definition for `npm run dev-issuer`
// (scripts/dev-issuer.ts) and the tests' issuer (test/helpers/oidc-issuer.ts), so that what a
// reader tries is what the tests rely on.
import { createServer } from "node:http";
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import type { CryptoKey, JWK } from "jose";
import Provider from "oidc-provider";
import { SCOPES } from "../src/auth/scopes.js";

/** Every scope the gateway knows (src/auth/scopes.ts), all of which the provider may grant. */
export const GRANTABLE: readonly string[] = Object.keys(SCOPES);

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly privateJwk: JWK;
  readonly publicJwk: JWK;
}

/** A new RS256 key pair named `kid`. */
export async function signingKey(kid: string): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: "RS256", use: "sig" };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" };
  return { kid, privateKey, publicKey, privateJwk, publicJwk };
}

export interface ProviderSettings {
  /** The issuer identifier, the URL the provider is reached at: http://127.0.0.1:<port> */
  readonly issuer: string;
  /** The one resource tokens are issued for, their `aud`: the gateway's --auth-audience. */
  readonly audience: string;
  /** The one client, which authenticates with HTTP Basic (client_secret_basic). */
  readonly clientId: string;
  readonly clientSecret: string;
  /** The first signs; the others stay published in the JWK Set. */
  readonly keys: readonly SigningKey[];
  /** How long an access token is valid, in seconds. */
  readonly accessTokenTtlS: number;
}

/**
 * The provider. A token request that names no `resource` gets a token for `audience`, so a
 * client needs to send only the grant type and the scopes it wants.
 */
export function providerOf({ issuer, audience, clientId, clientSecret, keys, accessTokenTtlS }: ProviderSettings): Provider {
  const scope = GRANTABLE.join(" ");
  return new Provider(issuer, {
    clients: [{ client_id: clientId, client_secret: clientSecret, grant_types: ["client_credentials"], redirect_uris: [], response_types: [], scope }],
    jwks: { keys: keys.map((key) => key.privateJwk) },
    scopes: [...GRANTABLE],
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => {
          if (resource !== audience) throw new Error(`unknown resource ${resource}`);
          return { scope, audience, accessTokenFormat: "jwt", accessTokenTTL: accessTokenTtlS, jwt: { sign: { alg: "RS256" } } };
        },
      },
    },
  });
}

/** A request handler of `provider` (its Koa app's callback). */
export function handlerOf(provider: Provider): (request: IncomingMessage, response: ServerResponse) => void {
  const handle = provider.callback();
  return (request, response) => {
    void handle(request, response);
  };
}

/** An HTTP server that answers no request yet, listening on 127.0.0.1:`port` (0: any free port). */
export async function listeningServer(port: number): Promise<{ readonly server: Server; readonly port: number }> {
  const server = createServer();
  await listen(server, port);
  return { server, port: (server.address() as AddressInfo).port };
}

export function listen(server: Server, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** Closes `server` and every connection it holds open. */
export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => { resolve(); });
    server.closeAllConnections();
  });
}
