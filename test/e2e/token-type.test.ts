// --auth-token-type through the built command, in front of a real OpenID provider: by default a
// token typed at+jwt (as the provider issues them), JWT or not at all is taken and one typed as
// another kind of token is refused; with AUTH_TOKEN_TYPE=at+jwt (the setting's variable) only
// at+jwt is taken.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { AUDIENCE, CLIENT_ID, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer, SigningKey } from "../helpers/oidc-issuer.js";

let issuer: Issuer;
let key: SigningKey;
let byDefault: StartedCommand;
let strict: StartedCommand;

beforeAll(async () => {
  key = await signingKey("typ-e2e");
  issuer = await startIssuer([key]);
  const flags = ["--auth-issuer", issuer.url, "--auth-audience", AUDIENCE];
  [byDefault, strict] = await Promise.all([startCommand(flags), startCommand(flags, { env: { AUTH_TOKEN_TYPE: "at+jwt" } })]);
}, 30_000);

afterAll(async () => {
  await Promise.all([byDefault.stop(), strict.stop()]);
  await issuer.close();
});

/** A token of the issuer's key, as the provider would sign it, with `typ` (none when undefined). */
function typed(typ: string | undefined): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: issuer.url, aud: AUDIENCE, sub: CLIENT_ID, client_id: CLIENT_ID, scope: "jobs:read", iat: now, exp: now + 300 };
  return new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: key.kid, ...(typ === undefined ? {} : { typ }) }).sign(key.privateKey);
}

async function statusOf(gateway: StartedCommand, token: string): Promise<number> {
  const response = await fetch(`${gateway.url}/v1/jobs`, { headers: { authorization: `Bearer ${token}` } });
  await response.arrayBuffer();
  return response.status;
}

describe("a bearer token's typ", () => {
  it("is at+jwt, JWT or none by default; logout+jwt and JOSE are refused", async () => {
    const statuses = [await statusOf(byDefault, await issuer.token("jobs:read"))];
    for (const typ of ["JWT", undefined, "logout+jwt", "JOSE"]) statuses.push(await statusOf(byDefault, await typed(typ)));
    expect(statuses).toEqual([200, 200, 200, 401, 401]);
  });

  it("is at+jwt only with AUTH_TOKEN_TYPE=at+jwt", async () => {
    const statuses = [await statusOf(strict, await issuer.token("jobs:read"))];
    for (const typ of ["application/at+jwt", "JWT", undefined]) statuses.push(await statusOf(strict, await typed(typ)));
    expect(statuses).toEqual([200, 200, 401, 401]);
  });
});
