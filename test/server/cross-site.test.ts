// Cross-site protection (src/server/cross-site.ts): a page of another origin cannot change
// anything, a request addressed to a name that is not the gateway's (DNS rebinding) is refused,
// and requests without an Origin (curl, other servers) work as before. Through app.inject, a
// real listening gateway, and the built command.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { LOOPBACK_HOSTS, defaultAllowedHosts } from "../../src/server/cross-site.js";
import type { AppSettings } from "../../src/app.js";
import { startCommand } from "../helpers/command.js";
import { JSON_HEADERS, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";

const EVIL = "http://evil.example";
const JOB = { jobId: "m1", startDateTime: "2026-01-01T00:00:00Z" };

/** Leaves the jobs `jobIds` alone in the Manager, created through the gateway as `host`. */
async function resetTo(gw: TestGateway, jobIds: string[], host = "localhost:80"): Promise<void> {
  for (const job of await gw.jobs()) await gw.connection.manager.deleteJob({ jobId: job.jobId?.jobId ?? "" });
  for (const jobId of jobIds) {
    const created = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: { ...JSON_HEADERS, host }, payload: { ...JOB, jobId } });
    expect(created.statusCode).toBe(201);
  }
}

async function stateOf(gw: TestGateway, jobId: string): Promise<Job_JobState | "absent"> {
  return (await gw.jobs()).find((job) => job.jobId?.jobId === jobId)?.state ?? "absent";
}

function problem(status: number, title: string, detail: string, instance: string, requestId: string, errors: { header: string; message: string }[]) {
  return { type: "about:blank", title, status, detail, instance, requestId, errors };
}

const FOREIGN_DETAIL = "a page of another origin may not change anything here";
const NOT_JSON_DETAIL = "a request that changes something takes a JSON body (application/json, application/merge-patch+json or application/json-patch+json), or none";

describe("a gateway with the default settings (app.inject, Host localhost:80)", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(async () => {
    await gw.close();
  });
  beforeEach(async () => {
    await resetTo(gw, ["m1"]);
  });

  it("refuses the probe's POST /v1/jobs/m1/complete (Origin http://evil.example, text/plain) with 403, and the job is not completed", async () => {
    const res = await gw.app.inject({
      method: "POST",
      url: "/v1/jobs/m1/complete",
      headers: { origin: EVIL, "content-type": "text/plain", "x-request-id": "probe-9" },
      payload: "",
    });
    expect(res.statusCode).toBe(403);
    expect(res.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
    expect(res.json()).toEqual(
      problem(403, "Forbidden", FOREIGN_DETAIL, "/v1/jobs/m1/complete", "probe-9", [
        { header: "origin", message: '"http://evil.example" is not an allowed origin (--allowed-origin or --cors-origin)' },
      ]),
    );
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.PRE);
  });

  it.each(["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])(
    "refuses a body-less POST /v1/jobs/m1/complete sent as %s (no preflight needed) with 415, and the job is not completed",
    async (contentType) => {
      const res = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { "content-type": contentType, "x-request-id": "simple-1" }, payload: "" });
      expect(res.statusCode).toBe(415);
      expect(res.json()).toEqual(
        problem(415, "Unsupported Media Type", NOT_JSON_DETAIL, "/v1/jobs/m1/complete", "simple-1", [{ header: "content-type", message: "is not a JSON media type" }]),
      );
      expect(await stateOf(gw, "m1")).toBe(Job_JobState.PRE);
    },
  );

  it.each([
    ["DELETE /v1/jobs/m1", "DELETE", "/v1/jobs/m1", undefined],
    ["POST /v1/jobs (a JSON body)", "POST", "/v1/jobs", { ...JOB, jobId: "m2" }],
    ["PUT /v1/jobs/m1", "PUT", "/v1/jobs/m1", { ...JOB, description: "changed" }],
  ] as const)("refuses %s from another origin with 403 and changes nothing", async (_name, method, url, body) => {
    const before = await gw.jobs();
    const res = await gw.app.inject({ method, url, headers: { origin: EVIL, ...(body === undefined ? {} : JSON_HEADERS) }, ...(body === undefined ? {} : { payload: body }) });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ status: 403, errors: [{ header: "origin" }] });
    expect(await gw.jobs()).toEqual(before);
  });

  it.each(["null", "http://localhost:3000", "https://localhost", "not an origin"])("refuses Origin %j (not the gateway's own) with 403", async (origin) => {
    const res = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { origin } });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ errors: [{ header: "origin", message: `${JSON.stringify(origin)} is not an allowed origin (--allowed-origin or --cors-origin)` }] });
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.PRE);
  });

  it("completes the job for a request without an Origin or a Content-Type (curl -X POST): 204", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete" });
    expect(res.statusCode).toBe(204);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.POST);
  });

  it("accepts a request from a page of its own origin (Origin http://localhost for Host localhost:80)", async () => {
    const res = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { origin: "http://localhost" } });
    expect(res.statusCode).toBe(204);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.POST);
  });

  it("answers reads whatever their Origin (the browser keeps the answer from another origin's page)", async () => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/m1", headers: { origin: EVIL } });
    expect(res.statusCode).toBe(200);
  });

  it.each(["evil.example", "evil.example:80", "localhost.evil.example", "127.0.0.1.nip.io:8080"])(
    "refuses Host %s (a name that is not the gateway's) with 421, reads included",
    async (host) => {
      const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/m1", headers: { host, "x-request-id": "rebind-1" } });
      expect(res.statusCode).toBe(421);
      expect(res.json()).toEqual(
        problem(421, "Misdirected Request", "the request is addressed to a host this gateway does not serve", "/v1/jobs/m1", "rebind-1", [
          { header: "host", message: `${JSON.stringify(host)} is not a name of this gateway (--allowed-host)` },
        ]),
      );
    },
  );

  it.each(["localhost", "LOCALHOST:8080", "127.0.0.1:9000", "[::1]:8080"])("answers Host %s (a loopback name, any port)", async (host) => {
    const res = await gw.app.inject({ method: "GET", url: "/v1/jobs/m1", headers: { host } });
    expect(res.statusCode).toBe(200);
  });
});

describe("configured hosts and origins (app.inject)", () => {
  const gateways: TestGateway[] = [];
  async function gatewayWith(crossSite: Partial<Pick<AppSettings, "allowedHosts" | "allowedOrigins">>, host?: string): Promise<TestGateway> {
    const gw = await startTestGateway(crossSite);
    gateways.push(gw);
    await resetTo(gw, ["m1"], host);
    return gw;
  }
  afterAll(async () => {
    for (const gw of gateways) await gw.close();
  });

  it("lets a page of an allowed origin create and complete jobs", async () => {
    const gw = await gatewayWith({ allowedOrigins: ["https://ui.example.com"] });
    const origin = { origin: "https://ui.example.com" };
    const created = await gw.app.inject({ method: "POST", url: "/v1/jobs", headers: { ...origin, ...JSON_HEADERS }, payload: { ...JOB, jobId: "m2" } });
    expect(created.statusCode).toBe(201);
    const completed = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: origin });
    expect(completed.statusCode).toBe(204);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.POST);
    const other = await gw.app.inject({ method: "DELETE", url: "/v1/jobs/m2", headers: { origin: "https://ui.example.com:8443" } });
    expect(other.statusCode).toBe(403);
  });

  it("answers any Host with *, but lets a page change things only when its Host cannot be rebound (an IP address, localhost)", async () => {
    const gw = await gatewayWith({ allowedHosts: ["*"] });
    const read = await gw.app.inject({ method: "GET", url: "/v1/jobs/m1", headers: { host: "gateway.internal:8080" } });
    expect(read.statusCode).toBe(200);
    const rebound = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { host: "evil.example:8080", origin: "http://evil.example:8080" } });
    expect(rebound.statusCode).toBe(403);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.PRE);
    const byAddress = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { host: "192.0.2.10:8080", origin: "http://192.0.2.10:8080" } });
    expect(byAddress.statusCode).toBe(204);
  });

  it("treats a configured name as the gateway's own: any port for a bare name, only that port for name:port", async () => {
    const gw = await gatewayWith({ allowedHosts: ["gateway.example.com", "api.example.com:8443"] }, "gateway.example.com");
    const status = async (host: string) => (await gw.app.inject({ method: "GET", url: "/v1/jobs/m1", headers: { host } })).statusCode;
    expect(await status("gateway.example.com:9999")).toBe(200);
    expect(await status("api.example.com:8443")).toBe(200);
    expect(await status("api.example.com:8080")).toBe(421);
    expect(await status("localhost")).toBe(421);
    const own = await gw.app.inject({ method: "POST", url: "/v1/jobs/m1/complete", headers: { host: "gateway.example.com", origin: "https://gateway.example.com" } });
    expect(own.statusCode).toBe(204);
  });
});

describe("defaultAllowedHosts", () => {
  it.each([
    ["127.0.0.1", LOOPBACK_HOSTS],
    ["localhost", LOOPBACK_HOSTS],
    ["::1", LOOPBACK_HOSTS],
    ["127.0.0.2", [...LOOPBACK_HOSTS, "127.0.0.2"]],
    ["0.0.0.0", ["*"]],
    ["::", ["*"]],
    ["192.168.1.10", ["*"]],
  ])("for --host %s is %j", (host, expected) => {
    expect(defaultAllowedHosts(host)).toEqual(expected);
  });
});

interface Answer {
  readonly status: number;
  readonly body: string;
}

/** A request over a real socket, with exactly the headers given (Host included). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body = ""): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, url), { method, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, body: text });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("a real listening gateway (127.0.0.1)", () => {
  let gw: Awaited<ReturnType<typeof startListeningGateway>>;
  beforeAll(async () => {
    gw = await startListeningGateway();
  });
  afterAll(async () => {
    await gw.close();
  });
  beforeEach(async () => {
    await resetTo(gw, ["m1"]);
  });

  it("refuses the probe's request with 403 and leaves the job as it was", async () => {
    const res = await send(gw.url, "POST", "/v1/jobs/m1/complete", { origin: EVIL, "content-type": "text/plain" });
    expect(res.status).toBe(403);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.PRE);
  });

  it("refuses a request for another Host (DNS rebinding) with 421", async () => {
    const res = await send(gw.url, "GET", "/v1/jobs/m1", { host: "evil.example:8080" });
    expect(res.status).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ status: 421, errors: [{ header: "host" }] });
  });

  it("completes the job for a curl-like request (no Origin), and accepts a page of its own origin", async () => {
    expect((await send(gw.url, "POST", "/v1/jobs/m1/complete", {})).status).toBe(204);
    expect(await stateOf(gw, "m1")).toBe(Job_JobState.POST);
    const own = await send(gw.url, "POST", "/v1/jobs", { origin: gw.url, "content-type": "application/json" }, JSON.stringify({ ...JOB, jobId: "m2" }));
    expect(own.status).toBe(201);
  });
});

describe("the command's --allowed-origin and default hosts", () => {
  it("lets the allowed origin's page create a job, refuses another origin's and a foreign Host", async () => {
    const gateway = await startCommand(["--allowed-origin", "https://ui.example.com"]);
    try {
      const body = JSON.stringify(JOB);
      const allowed = await send(gateway.url, "POST", "/v1/jobs", { origin: "https://ui.example.com", "content-type": "application/json" }, body);
      expect(allowed.status).toBe(201);
      const foreign = await send(gateway.url, "DELETE", "/v1/jobs/m1", { origin: EVIL });
      expect(foreign.status).toBe(403);
      const rebound = await send(gateway.url, "GET", "/v1/jobs/m1", { host: "evil.example" });
      expect(rebound.status).toBe(421);
      expect((await send(gateway.url, "GET", "/v1/jobs/m1", {})).status).toBe(200);
    } finally {
      expect(await gateway.stop()).toBe(0);
    }
  });
});
