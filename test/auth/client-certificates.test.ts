// Client certificates (--tls-client-ca) through real TLS on loopback, the gateway as main.ts
// starts it from its flags, with certificates made by openssl for this run
// (test/helpers/certificates.ts). A certificate of the CA is the principal its subject names,
// with the scopes of the --api-keys entry `cert:<CN>`: with the entry it is let in (and named
// in the access log), without one it has no scope (403), and a key's entry of the same name
// gives it nothing. The handshake itself refuses a connection without a certificate, one of
// another CA (its CN matching an entry or not), and a certificate of the CA not made for
// clients. A subject is written in RFC 4514's form, so that a CN of `odd,O=Admin` and a subject
// of O=Admin and CN=odd are two principals (the built command, over real TLS).
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { makeCertificates, makeClientCertificate } from "../helpers/certificates.js";
import type { Certificates, Pem } from "../helpers/certificates.js";
import { startCommand } from "../helpers/command.js";
import { START, startMainGateway } from "../helpers/gateway.js";
import type { MainGateway } from "../helpers/gateway.js";

const ADMIN_KEY = "k-admin-0d6f3a9be2c14875";

let certs: Certificates;
let manager: RunningManager;
let gateway: MainGateway;
/** Signed by the CA: CN "client" (an entry with jobs:read), "builder" (no entry), "admin" (an API key's name). */
let withEntry: Pem;
let withoutEntry: Pem;
let namedLikeKey: Pem;
/** Signed by the other CA: CN "client", as the entry names, and CN "stranger". */
let otherCaSameName: Pem;
let otherCa: Pem;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
}

/** One request on a connection of its own to `base` (the gateway's URL), presenting `client` (or no certificate). */
function call(client: Pem | undefined, method = "GET", path = "/v1/jobs", body?: object, headers: Record<string, string> = {}, base = gateway.url): Promise<Answer> {
  const identity = client === undefined ? {} : { cert: certs.read(client.cert), key: certs.read(client.key) };
  return new Promise((resolve, reject) => {
    const req = request(`${base.replace("127.0.0.1", "localhost")}${path}`, {
      method,
      ca: certs.read(certs.ca.cert),
      ...identity,
      agent: false,
      headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    }, (res) => {
      res.resume();
      res.on("end", () => { resolve({ status: res.statusCode ?? 0, headers: res.headers }); });
    });
    req.on("error", reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/**
 * What a connection the server's handshake refused ends with: the server's TLS alert, or, when
 * the client has already sent its request (TLS 1.3 verifies the client's certificate after the
 * client's side of the handshake is done), the connection reset. Never an HTTP answer.
 */
const REFUSED = { code: expect.stringMatching(/^(ERR_SSL_TLSV1\d?_ALERT_|ECONNRESET$)/) as unknown };

/** The access-log lines of requests to `path`. */
function accessLines(path: string): Record<string, unknown>[] {
  return gateway.lines.filter((line) => line.msg === "request" && line.route === path);
}

beforeAll(async () => {
  certs = makeCertificates(["localhost"]);
  withEntry = makeClientCertificate(certs, { commonName: "client", signer: certs.ca, file: "with-entry" });
  withoutEntry = makeClientCertificate(certs, { commonName: "builder", signer: certs.ca, file: "without-entry" });
  namedLikeKey = makeClientCertificate(certs, { commonName: "admin", signer: certs.ca, file: "named-like-key" });
  otherCaSameName = makeClientCertificate(certs, { commonName: "client", signer: certs.otherCa, file: "other-ca-same-name" });
  otherCa = makeClientCertificate(certs, { commonName: "stranger", signer: certs.otherCa, file: "stranger" });
  const keys = join(certs.dir, "api-keys.json");
  writeFileSync(keys, JSON.stringify([
    // A certificate's entry holds no key: any digest.
    { name: "cert:client", sha256: "0".repeat(64), scopes: ["jobs:read"] },
    { name: "admin", sha256: createHash("sha256").update(ADMIN_KEY).digest("hex"), scopes: ["jobs:read", "jobs:write"] },
  ]));
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  gateway = await startMainGateway([
    "--manager", manager.address,
    "--tls-cert", certs.server.cert, "--tls-key", certs.server.key,
    "--tls-client-ca", certs.ca.cert, "--api-keys", keys,
  ]);
}, 30_000);

afterAll(async () => {
  await gateway.close();
  await manager.close();
  certs.remove();
});

describe("client certificates on the HTTPS listener (--tls-client-ca)", () => {
  it("lets in a certificate of the CA with the scopes of its cert:<CN> entry, its subject the principal in the access log", async () => {
    expect((await call(withEntry)).status).toBe(200);
    expect(accessLines("/v1/jobs").at(-1)).toMatchObject({ status: 200, principal: "CN=client" });
  });

  it("holds that certificate to its entry's scopes: a write it lacks the scope for is a 403 naming the scope", async () => {
    const answer = await call(withEntry, "POST", "/v1/jobs", { jobId: "by-certificate", startDateTime: START });
    expect(answer.status).toBe(403);
    expect(answer.headers["www-authenticate"]).toBe('Bearer realm="norsk-manager-gateway", error="insufficient_scope", scope="jobs:write"');
    expect((await call(withEntry, "GET", "/v1/jobs/by-certificate")).status).toBe(404);
  });

  it("gives a certificate of the CA without an entry no scope: 403, its subject still the principal", async () => {
    const answer = await call(withoutEntry);
    expect(answer.status).toBe(403);
    expect(answer.headers["www-authenticate"]).toContain('error="insufficient_scope"');
    expect(accessLines("/v1/jobs").at(-1)).toMatchObject({ status: 403, principal: "CN=builder" });
  });

  it("never gives a certificate the scopes of an API key's entry of its CN's name", async () => {
    expect((await call(namedLikeKey)).status).toBe(403);
    // The key itself, on the same kind of connection, is let in: the entry is there.
    expect((await call(namedLikeKey, "GET", "/v1/jobs", undefined, { "x-api-key": ADMIN_KEY })).status).toBe(200);
  });

  it("refuses in the handshake a connection that shows no certificate", async () => {
    await expect(call(undefined)).rejects.toMatchObject(REFUSED);
  });

  it.each([
    ["of another CA", () => otherCa],
    ["of another CA whose CN an entry names", () => otherCaSameName],
  ])("refuses in the handshake a certificate %s", async (_, client) => {
    await expect(call(client())).rejects.toMatchObject(REFUSED);
  });

  it("refuses in the handshake a certificate of the CA made for servers, not clients", async () => {
    await expect(call(certs.server)).rejects.toMatchObject(REFUSED);
  });

  it("lets nothing refused in the handshake reach the routes: no access line for any of them", () => {
    const principals = accessLines("/v1/jobs").map((line) => line.principal);
    expect(principals).not.toContain("CN=stranger");
    expect(principals.filter((p) => p === undefined)).toEqual([]);
  });
});

describe("a subject whose CN looks like more than one RDN, through the built command", () => {
  it("names a CN of `odd,O=Admin` CN=odd\\,O=Admin (let in by its cert:odd,O=Admin entry), and a subject of O=Admin and CN=odd CN=odd,O=Admin (no entry: 403)", async () => {
    const oddCn = makeClientCertificate(certs, { commonName: "odd,O=Admin", signer: certs.ca, file: "odd-cn" });
    const twoRdns = makeClientCertificate(certs, { subject: "/O=Admin/CN=odd", signer: certs.ca, file: "two-rdns" });
    const keys = join(certs.dir, "odd-api-keys.json");
    writeFileSync(keys, JSON.stringify([{ name: "cert:odd,O=Admin", sha256: "0".repeat(64), scopes: ["jobs:read"] }]));
    const command = await startCommand(["--tls-cert", certs.server.cert, "--tls-key", certs.server.key, "--tls-client-ca", certs.ca.cert, "--api-keys", keys]);
    try {
      expect((await call(oddCn, "GET", "/v1/jobs", undefined, {}, command.url)).status).toBe(200);
      expect((await call(twoRdns, "GET", "/v1/jobs", undefined, {}, command.url)).status).toBe(403);
    } finally {
      await command.stop();
    }
    const principals = command.lines
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === "request" && line.route === "/v1/jobs")
      .map((line) => [line.status, line.principal]);
    expect(principals).toEqual([[200, "CN=odd\\,O=Admin"], [403, "CN=odd,O=Admin"]]);
  });
});
