// HTTPS on the listener (--tls-cert, --tls-key): the built command serves HTTP/2 and HTTP/1.1 on
// one port, chosen by ALPN, with certificates made by openssl for this run. curl, node's HTTP/2
// and HTTPS clients, and chromium are the clients; every kind of answer (JSON, 201 with
// Location, 304, NDJSON, an event stream, a problem, HEAD) is read over HTTP/2, whose requests
// carry :authority rather than Host; a shutdown with an HTTP/2 stream open still ends at once.
import { execFile } from "node:child_process";
import { connect } from "node:http2";
import type { ClientHttp2Session, IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http2";
import { request as httpsRequest } from "node:https";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { makeCertificates } from "../helpers/certificates.js";
import type { Certificates } from "../helpers/certificates.js";

const run = promisify(execFile);

let certs: Certificates;
let gateway: StartedCommand;
let url: string;

interface H2Answer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** One request on `session`, read to its end. */
function h2(session: ClientHttp2Session, headers: OutgoingHttpHeaders, body?: string): Promise<H2Answer> {
  return new Promise((resolve, reject) => {
    const stream = session.request(headers, { endStream: body === undefined });
    let text = "";
    let answer: IncomingHttpHeaders = {};
    stream.setEncoding("utf8");
    stream.on("response", (h) => { answer = h; });
    stream.on("data", (chunk: string) => { text += chunk; });
    stream.on("end", () => { resolve({ status: Number(answer[":status"]), headers: answer, body: text }); });
    stream.on("error", reject);
    if (body !== undefined) stream.end(body);
  });
}

function h2session(): ClientHttp2Session {
  return connect(url, { ca: certs.read(certs.ca.cert), servername: "localhost" });
}

beforeAll(async () => {
  certs = makeCertificates(["localhost", "127.0.0.1"]);
  gateway = await startCommand(["--tls-cert", certs.server.cert, "--tls-key", certs.server.key]);
  url = gateway.url.replace("127.0.0.1", "localhost");
});

afterAll(async () => {
  await gateway.stop();
  certs.remove();
});

describe("the built command with --tls-cert and --tls-key", () => {
  it("says it listens on https://", () => {
    expect(gateway.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it.each([
    ["--http2", "2"],
    ["--http1.1", "1.1"],
  ])("answers curl %s over TLS with its CA: HTTP/%s 200", async (flag, version) => {
    const { stdout } = await run("curl", ["-sS", flag, "--cacert", certs.ca.cert, "-o", "/dev/null", "-w", "%{http_version} %{http_code}", `${url}/healthz`]);
    expect(stdout).toBe(`${version} 200`);
  });

  it("is refused by curl without the CA: the certificate is checked, not skipped", async () => {
    await expect(run("curl", ["-sS", "--http2", `${url}/healthz`])).rejects.toThrow(/certificate/i);
  });

  it("answers node's HTTPS client (ALPN offers only http/1.1) over HTTP/1.1", async () => {
    const answer = await new Promise<{ status: number; version: string; body: string }>((resolve, reject) => {
      const req = httpsRequest(`${url}/healthz`, { ca: certs.read(certs.ca.cert) }, (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => { body += chunk; });
        res.on("end", () => { resolve({ status: res.statusCode ?? 0, version: res.httpVersion, body }); });
      });
      req.on("error", reject);
      req.end();
    });
    expect(answer).toEqual({ status: 200, version: "1.1", body: '{"status":"ok"}' });
  });

  it("serves the API over HTTP/2: create, read, 304, NDJSON, HEAD and a problem", async () => {
    const session = h2session();
    try {
      const job = JSON.stringify({ jobId: "over-h2", startDateTime: "2026-12-24T18:00:00.123456789Z", tags: { via: "h2" } });
      const created = await h2(session, { ":method": "POST", ":path": "/v1/jobs", "content-type": "application/json" }, job);
      expect(created.status).toBe(201);
      expect(created.headers.location).toBe("/v1/jobs/over-h2");
      const read = await h2(session, { ":path": "/v1/jobs/over-h2" });
      expect(read.status).toBe(200);
      expect(JSON.parse(read.body)).toMatchObject({ jobId: "over-h2", startDateTime: "2026-12-24T18:00:00.123456789Z", tags: { via: "h2" } });
      const etag = String(read.headers.etag);
      const unchanged = await h2(session, { ":path": "/v1/jobs/over-h2", "if-none-match": etag });
      expect([unchanged.status, unchanged.body, unchanged.headers["content-length"]]).toEqual([304, "", undefined]);
      const lines = await h2(session, { ":path": "/v1/jobs?tag=via:h2", accept: "application/x-ndjson" });
      expect(lines.status).toBe(200);
      expect(lines.body.trim().split("\n").map((line) => (JSON.parse(line) as { jobId: string }).jobId)).toEqual(["over-h2"]);
      const head = await h2(session, { ":method": "HEAD", ":path": "/v1/jobs/over-h2" });
      expect([head.status, head.body, head.headers.etag]).toEqual([200, "", etag]);
      const missing = await h2(session, { ":path": "/v1/jobs/nobody" });
      expect(missing.status).toBe(404);
      expect(missing.headers["content-type"]).toBe("application/problem+json; charset=utf-8");
      expect(JSON.parse(missing.body)).toMatchObject({ status: 404, instance: "/v1/jobs/nobody" });
    } finally {
      session.close();
    }
  });

  it("refuses an HTTP/2 request whose :authority is not one of its names with 421, as it does a Host", async () => {
    const session = h2session();
    try {
      const answer = await h2(session, { ":path": "/healthz", ":authority": "evil.example" });
      expect(answer.status).toBe(421);
      expect(JSON.parse(answer.body)).toMatchObject({ errors: [{ header: "host", message: '"evil.example" is not a name of this gateway (--allowed-host)' }] });
    } finally {
      session.close();
    }
  });

  it("streams events over HTTP/2: the initial picture, then a change made on another stream", async () => {
    const session = h2session();
    try {
      const events = session.request({ ":path": "/v1/events", accept: "text/event-stream" });
      events.setEncoding("utf8");
      let text = "";
      const waiting: { name: string; resolve: () => void }[] = [];
      events.on("data", (chunk: string) => {
        text += chunk;
        for (const wait of waiting.filter((w) => text.includes(`event: ${w.name}`))) wait.resolve();
      });
      const seen = (name: string) => new Promise<void>((resolve) => {
        if (text.includes(`event: ${name}`)) resolve();
        else waiting.push({ name, resolve });
      });
      await seen("initialDataComplete");
      const job = JSON.stringify({ jobId: "seen-over-h2", startDateTime: "2026-12-24T18:00:00Z" });
      expect((await h2(session, { ":method": "POST", ":path": "/v1/jobs", "content-type": "application/json" }, job)).status).toBe(201);
      await seen("jobUpdated");
      expect(text).toContain('"jobId":"seen-over-h2"');
      events.close();
    } finally {
      session.close();
    }
  });
});

describe("shutdown of an HTTPS gateway", () => {
  it("ends the open HTTP/2 event stream at SIGTERM and exits 0 before the shutdown deadline", async () => {
    const own = await startCommand(["--tls-cert", certs.server.cert, "--tls-key", certs.server.key, "--shutdown-timeout", "20000"]);
    const session = connect(own.url.replace("127.0.0.1", "localhost"), { ca: certs.read(certs.ca.cert), servername: "localhost" });
    const stream = session.request({ ":path": "/v1/events" });
    stream.resume();
    await new Promise((resolve) => stream.once("response", resolve));
    const ended = new Promise((resolve) => stream.once("close", resolve));
    expect(await own.stop()).toBe(0);
    await ended;
    // The stream and its session were closed by the shutdown itself, not cut at its deadline.
    expect(own.lines.join("\n")).not.toContain("shutdown deadline passed");
    session.destroy();
  }, 60_000);
});

describe("unusable TLS files", () => {
  it.each([
    ["a certificate that cannot be read", () => ["--tls-cert", `${certs.dir}/absent.pem`, "--tls-key", certs.server.key], /--tls-cert \(TLS_CERT\): cannot read .*absent\.pem \(ENOENT\)/],
    ["a key that is not the certificate's", () => ["--tls-cert", certs.server.cert, "--tls-key", certs.client.key], /--tls-cert \(TLS_CERT\): not usable with --tls-key \(TLS_KEY\)/],
  ])("stops at start-up with exit 2 on %s, naming the setting", async (_what, args, message) => {
    const failed: unknown = await run(process.execPath, ["dist/src/main.js", "--port", "0", ...args()]).then(
      () => ({ code: 0, stderr: "" }),
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ code: 2, stderr: expect.stringMatching(message) as unknown });
  });
});

describe.skipIf(skipWithoutChromium("the HTTPS browser test"))("chromium over HTTPS", () => {
  it("loads Swagger UI over HTTP/2 and receives events with an EventSource on it", async () => {
    const browser = await launchChromium({ ignoreHTTPSErrors: true });
    try {
      const page = await browser.context.newPage();
      await page.goto(`${url}/docs`);
      await page.waitForSelector(".opblock", { timeout: 30_000 });
      expect(await page.evaluate('performance.getEntriesByType("navigation")[0].nextHopProtocol')).toBe("h2");
      const first = await page.evaluate(
        () =>
          new Promise<string>((resolve, reject) => {
            const source = new EventSource("/v1/events");
            source.addEventListener("initialDataComplete", (event) => {
              source.close();
              resolve(event.type);
            });
            source.onerror = () => { reject(new Error("EventSource failed")); };
          }),
      );
      expect(first).toBe("initialDataComplete");
    } finally {
      await browser.close();
    }
  }, 60_000);
});
