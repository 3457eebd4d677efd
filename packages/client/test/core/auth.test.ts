// Authentication against the gateway: an API key in X-API-Key; a bearer token from an
// oidc-provider issuer through getToken, asked once, kept, and asked again (once) when the
// gateway answers 401 because it expired, the request then sent again; a static token that
// expired stays a 401. No credential is ever put in a URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../../../src/auth/api-keys.js";
import { JwtVerifier } from "../../../../src/auth/jwt.js";
import { apiKeysFile } from "../../../../test/helpers/api-keys-file.js";
import type { ApiKeysFile } from "../../../../test/helpers/api-keys-file.js";
import { startListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import type { ListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import { AUDIENCE, signingKey, startIssuer } from "../../../../test/helpers/oidc-issuer.js";
import type { Issuer } from "../../../../test/helpers/oidc-issuer.js";
import { ProblemError, createClient } from "../../src/index.js";

const KEY = "a-client-test-key-of-some-length";
const TTL_S = 3;

let issuer: Issuer;
let keys: ApiKeysFile;
let gateway: ListeningGateway;
/** Every URL the client's fetch was given. */
const urls: string[] = [];
const counted: typeof fetch = (input, init) => {
  urls.push(input instanceof Request ? input.url : input.toString());
  return fetch(input, init);
};

beforeAll(async () => {
  issuer = await startIssuer([await signingKey("client-key")], { accessTokenTtlS: TTL_S });
  keys = await apiKeysFile([{ name: "client", key: KEY, scopes: ["jobs:read", "jobs:write"] }]);
  // No clock skew: a token is refused the second it expires.
  const jwt = new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 0 });
  gateway = await startListeningGateway({ access: { jwt, apiKeys: new ApiKeys(keys.file) } });
});

afterAll(async () => {
  await gateway.close();
  await issuer.close();
  await keys.remove();
});

async function expired(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, (TTL_S + 1.1) * 1000));
}

describe("authentication", () => {
  it("without credentials is a 401, UNAUTHENTICATED", async () => {
    const error = await createClient({ baseUrl: gateway.url }).jobs.list().all().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemError);
    expect([(error as ProblemError).status, (error as ProblemError).code]).toEqual([401, "UNAUTHENTICATED"]);
  });

  it("with an API key reads and writes", async () => {
    const client = createClient({ baseUrl: gateway.url, apiKey: KEY, fetch: counted });
    await client.jobs.create({ jobId: "auth-1", startDateTime: "2026-12-24T18:00:00Z" });
    expect((await client.jobs.list().all()).map((job) => job.jobId)).toEqual(["auth-1"]);
  });

  it("with getToken asks once, then again once after the token expired, and goes on", async () => {
    let asked = 0;
    const client = createClient({
      baseUrl: gateway.url,
      fetch: counted,
      getToken: async () => {
        asked += 1;
        return issuer.token("jobs:read jobs:write");
      },
    });
    await client.jobs.get("auth-1");
    await client.jobs.get("auth-1");
    expect(asked).toBe(1);
    await expired();
    // Not retryable by itself, yet sent again after the 401: the gateway refused it before doing anything.
    await client.jobs.patch("auth-1", { description: "after a refresh" });
    expect(asked).toBe(2);
    expect((await client.jobs.get("auth-1")).description).toBe("after a refresh");
    expect(asked).toBe(2);
  });

  it("with a static token that expired is a 401 that stands", async () => {
    const client = createClient({ baseUrl: gateway.url, token: await issuer.token("jobs:read"), fetch: counted });
    await client.jobs.get("auth-1");
    await expired();
    const error = await client.jobs.get("auth-1").catch((caught: unknown) => caught);
    expect((error as ProblemError).status).toBe(401);
  });

  it("never put a credential in a URL", () => {
    expect(urls.length).toBeGreaterThan(5);
    expect(urls.filter((url) => url.includes(KEY) || /token|eyJ/i.test(url))).toEqual([]);
  });
});
