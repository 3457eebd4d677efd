// --trust-proxy (src/server/trust-proxy.ts): X-Forwarded-For, -Host and -Proto name the client
// only on requests whose connection comes from a listed proxy. Loopback is the only peer a test
// has, so each case runs twice: with 127.0.0.1 trusted (the headers are a proxy's), and with
// another address trusted (the same headers are a client's forgery, and ignored). Through the
// gateway as main.ts starts it from its flags, its log captured.
import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config.js";
import { eventually } from "../helpers/listening-gateway.js";
import { loggedGatewaysPerTest } from "../telemetry/log-capture.js";
import type { LoggedGateway, LogLine } from "../telemetry/log-capture.js";

/** A documentation address (RFC 5737): never the test's peer. */
const OTHER_PROXY = "192.0.2.1";
const CLIENT_A = "203.0.113.7";
const CLIENT_B = "203.0.113.8";

const gateways = loggedGatewaysPerTest();

function gatewayWith(argv: readonly string[]): Promise<LoggedGateway> {
  return gateways.start(argv);
}

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A request with any headers, Host included (fetch will not send a Host of the test's choosing). */
function send(url: string, method: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.once("end", () => { resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }); });
    });
    request.on("error", reject);
    request.end(body);
  });
}

async function accessLine(gateway: LoggedGateway, requestId: string): Promise<LogLine> {
  await eventually(() => gateway.access().some((line) => line.requestId === requestId), `the access line of ${requestId}`);
  return gateway.access().find((line) => line.requestId === requestId) ?? {};
}

describe("the client address (access log)", () => {
  it("is the peer's when the peer is not a trusted proxy: a forged X-Forwarded-For is ignored", async () => {
    const gateway = await gatewayWith(["--trust-proxy", OTHER_PROXY]);
    const res = await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": CLIENT_A, "x-request-id": "forged-1" });
    expect(res.status).toBe(404);
    expect(await accessLine(gateway, "forged-1")).toMatchObject({ client: "127.0.0.1" });
  });

  it("is the forwarded one when the peer is a trusted proxy, and the right-most address not itself trusted", async () => {
    const gateway = await gatewayWith(["--trust-proxy", "127.0.0.1"]);
    // What the client wrote comes first; the proxy appends the address it saw.
    const res = await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": `${CLIENT_B}, ${CLIENT_A}`, "x-request-id": "proxied-1" });
    expect(res.status).toBe(404);
    expect(await accessLine(gateway, "proxied-1")).toMatchObject({ client: CLIENT_A });
  });

  it("is the forwarded one from a proxy in a trusted named range (loopback)", async () => {
    const gateway = await gatewayWith(["--trust-proxy", "loopback"]);
    await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": CLIENT_A, "x-request-id": "range-1" });
    expect(await accessLine(gateway, "range-1")).toMatchObject({ client: CLIENT_A });
  });

  it("is the peer's by default (--trust-proxy unset)", async () => {
    const gateway = await gatewayWith([]);
    await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": CLIENT_A, "x-request-id": "default-1" });
    expect(await accessLine(gateway, "default-1")).toMatchObject({ client: "127.0.0.1" });
  });
});

describe("--rate-limit's client", () => {
  it("is each forwarded client behind a trusted proxy: two clients each get their own allowance", async () => {
    const gateway = await gatewayWith(["--trust-proxy", "127.0.0.1", "--rate-limit", "1/m"]);
    const statuses = [];
    for (const client of [CLIENT_A, CLIENT_B, CLIENT_A]) statuses.push((await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": client })).status);
    expect(statuses).toEqual([404, 404, 429]);
  });

  it("is the peer when it is not trusted: forging X-Forwarded-For earns no fresh allowance", async () => {
    const gateway = await gatewayWith(["--trust-proxy", OTHER_PROXY, "--rate-limit", "1/m"]);
    const statuses = [];
    for (const client of [CLIENT_A, CLIENT_B]) statuses.push((await send(`${gateway.url}/v1/jobs/none`, "GET", { "x-forwarded-for": client })).status);
    expect(statuses).toEqual([404, 429]);
  });
});

describe("the Host and Origin checks behind a proxy", () => {
  const forwarded = { "x-forwarded-host": "api.example", "x-forwarded-proto": "https" };
  const job = JSON.stringify({ jobId: "proxied-job", startDateTime: "2026-12-24T18:00:00Z" });

  it("read X-Forwarded-Host from a trusted proxy: a page of https://api.example may create a job", async () => {
    const gateway = await gatewayWith(["--trust-proxy", "127.0.0.1", "--allowed-host", "api.example"]);
    const headers = { ...forwarded, host: "gateway.internal:8080", origin: "https://api.example", "content-type": "application/json" };
    const res = await send(`${gateway.url}/v1/jobs`, "POST", headers, job);
    expect(res.status).toBe(201);
  });

  it("ignore a forged X-Forwarded-Host from another peer: its Host is refused (421)", async () => {
    const gateway = await gatewayWith(["--trust-proxy", OTHER_PROXY, "--allowed-host", "api.example"]);
    const res = await send(`${gateway.url}/v1/jobs/none`, "GET", { ...forwarded, host: "evil.example" });
    expect(res.status).toBe(421);
  });
});

describe("--trust-proxy's values", () => {
  const config = (value: string) => loadConfig(["--trust-proxy", value], {});

  it("takes addresses, CIDR ranges and named ranges, comma-separated", () => {
    expect(config("10.0.0.0/8, 127.0.0.1,::1,fd00::/8,uniquelocal")).toMatchObject({ config: { trustProxy: ["10.0.0.0/8", "127.0.0.1", "::1", "fd00::/8", "uniquelocal"] } });
  });

  it.each([
    ["2", "--trust-proxy (TRUST_PROXY): \"2\" (item 0) is a hop count, which is not accepted"],
    ["10.0.0.0/33", "--trust-proxy (TRUST_PROXY): \"10.0.0.0/33\" (item 0) has a prefix length larger than 32"],
    ["1.2.3", "--trust-proxy (TRUST_PROXY): \"1.2.3\" (item 0) is not an IP address or CIDR range"],
  ])("refuses %s, naming it", (value, message) => {
    expect(() => config(value)).toThrow(ConfigError);
    expect(() => config(value)).toThrow(message);
  });

  it("refuses a host name (proxies are named by address)", () => {
    expect(() => config("proxy.example")).toThrow(/--trust-proxy \(TRUST_PROXY\)/);
  });
});
