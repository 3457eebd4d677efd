// `npm run dev-issuer`: a local OpenID provider for trying bearer tokens with the gateway
// (docs/guide/tokens.md). It serves on 127.0.0.1 only, signs with a key made at each start,
// has one client whose secret is printed, and keeps nothing: it is for trying, not for
// production. It prints the issuer URL, the gateway's flags and a curl line that gets a token
// by the client credentials grant; then it serves until SIGINT or SIGTERM.
//
//   npm run dev-issuer -- [--port 8081] [--audience urn:norsk-manager-gateway] [--token-ttl 300]
import { randomUUID } from "node:crypto";
import { parseArgs } from "node:util";
import { GRANTABLE, close, handlerOf, listeningServer, providerOf, signingKey } from "./oidc-provider.js";

/** The client that asks for tokens; the secret is no secret, as everything here. */
const DEV_CLIENT_ID = "dev-client";
const DEV_CLIENT_SECRET = "dev-secret-for-trying-not-for-production";

const USAGE = "usage: npm run dev-issuer -- [--port N] [--audience AUD] [--token-ttl SECONDS]";

function settings(): { port: number; audience: string; tokenTtlS: number } {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "8081" },
      audience: { type: "string", default: "urn:norsk-manager-gateway" },
      "token-ttl": { type: "string", default: "300" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  const port = Number(values.port);
  const tokenTtlS = Number(values["token-ttl"]);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) fail(`--port must be a port number, not ${values.port}`);
  if (!Number.isInteger(tokenTtlS) || tokenTtlS < 1) fail(`--token-ttl must be a whole number of seconds, not ${values["token-ttl"]}`);
  return { port, audience: values.audience, tokenTtlS };
}

function fail(message: string): never {
  process.stderr.write(`dev-issuer: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** The curl command that asks `issuer` for a token with `scope` by the client credentials grant. */
function tokenCommand(issuer: string, scope: string): string {
  return `curl -s -u ${DEV_CLIENT_ID}:${DEV_CLIENT_SECRET} -d grant_type=client_credentials --data-urlencode 'scope=${scope}' ${issuer}/token`;
}

async function main(): Promise<void> {
  const { port: asked, audience, tokenTtlS } = settings();
  const { server, port } = await listeningServer(asked).catch((error: unknown) => fail(`cannot listen on 127.0.0.1:${String(asked)}: ${String(error)}`));
  const issuer = `http://127.0.0.1:${String(port)}`;
  // A key id of its own at each start: a gateway that cached the keys of an earlier start looks
  // the new id up instead of checking new tokens against an old key of the same id.
  const keys = [await signingKey(`dev-${randomUUID()}`)];
  const handle = handlerOf(providerOf({ issuer, audience, clientId: DEV_CLIENT_ID, clientSecret: DEV_CLIENT_SECRET, keys, accessTokenTtlS: tokenTtlS }));
  server.on("request", handle);
  process.stdout.write(
    [
      `dev-issuer: issuer ${issuer} (for trying bearer tokens on this machine, not for production)`,
      `audience: ${audience}; client ${DEV_CLIENT_ID}; tokens valid ${String(tokenTtlS)} s; scopes: ${GRANTABLE.join(" ")}`,
      "",
      "Start the gateway with:",
      `  npm start -- --auth-issuer ${issuer} --auth-audience ${audience}`,
      "Get a token for the scopes you choose (space-separated):",
      `  ${tokenCommand(issuer, "jobs:read")}`,
      "",
    ].join("\n"),
  );
  const stop = (): void => {
    void close(server).then(() => process.exit(0));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

await main();
