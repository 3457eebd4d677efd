// The judge of conformance.test.ts fails what it should: canned answers, sent byte for byte by
// a raw TCP server standing in for the gateway, each wrong in one way against openapi.yaml.
// Without these, a judge that passed everything would pass the walk too.
import { createServer } from "node:net";
import type { Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConformanceJudge } from "../helpers/conformance.js";

const ETAG = '"-3481990684367738963"';
const JOB = {
  jobId: "encoder-1",
  description: "",
  tags: {},
  startDateTime: "2026-12-24T18:00:00Z",
  currentHash: "-3481990684367738963",
  services: [],
  norskMediaVersion: "recommended",
  state: "pre",
  shape: "",
  architecture: "",
  subnet: "",
  availabilityDomain: "",
  cloud: "aws",
};

/** The next answer the canned server sends, whatever the request. */
let answer = "";
let server: Server;
let url: string;
let judge: ConformanceJudge;

function respond(status: string, headers: Record<string, string>, body = ""): void {
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  answer = `HTTP/1.1 ${status}\r\n${head}connection: close\r\n\r\n${body}`;
}

function json(status: string, value: unknown, headers: Record<string, string> = {}, type = "application/json; charset=utf-8"): void {
  const body = JSON.stringify(value);
  respond(status, { "content-type": type, "content-length": String(Buffer.byteLength(body)), ...headers }, body);
}

beforeAll(async () => {
  judge = await ConformanceJudge.load("openapi.yaml");
  server = createServer((socket) => {
    socket.once("data", () => socket.end(answer, "latin1"));
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  url = `http://127.0.0.1:${String(typeof address === "object" && address !== null ? address.port : 0)}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const getJob = () => judge.judge(url, { method: "get", path: "/v1/jobs/encoder-1", headers: { "if-none-match": ETAG } });
const messages = async (): Promise<string> => (await getJob()).violations.map((v) => v.message).join("\n");

describe("the judge", () => {
  it("passes a conforming 200 and a conforming 304", async () => {
    json("200 OK", JOB, { etag: ETAG });
    expect((await getJob()).violations).toEqual([]);
    respond("304 Not Modified", { etag: ETAG });
    expect(await getJob()).toMatchObject({ status: 304, violations: [] });
  });

  it("fails the 304 of issue 15: a JSON Content-Type and Content-Length: 4 without a body", async () => {
    respond("304 Not Modified", { etag: ETAG, "content-type": "application/json; charset=utf-8", "content-length": "4" });
    await expect(getJob()).rejects.toThrow(/invalid json response body/);
  });

  it("fails a body without a required property", async () => {
    const { state: _state, ...stateless } = JOB;
    json("200 OK", stateless, { etag: ETAG });
    // A read's 200 may be a fields= answer (PartialJob), which needs only jobId; a replacement's
    // 200 is the whole Job.
    const replaced = await judge.judge(url, { method: "put", path: "/v1/jobs/encoder-1", headers: { "content-type": "application/json" }, body: JSON.stringify(JOB) });
    expect(replaced.violations.map((v) => v.message).join("\n")).toMatch(/must have required property 'state'/);
  });

  it("fails a property of the wrong type", async () => {
    json("200 OK", { ...JOB, currentHash: 5 }, { etag: ETAG });
    expect(await messages()).toMatch(/must be string/);
  });

  it("fails a Content-Type the response does not document", async () => {
    json("200 OK", JOB, { etag: ETAG }, "text/plain");
    expect(await messages()).toMatch(/media type "text\/plain" does not match/);
  });

  it("fails a problem answered as plain JSON (which Prism alone would let pass)", async () => {
    const problem = { type: "about:blank", title: "Not Found", status: 404, detail: "x", instance: "/v1/jobs/encoder-1", code: "NOT_FOUND", requestId: "r" };
    json("404 Not Found", problem);
    expect(await messages()).toBe('the media type "application/json; charset=utf-8" is none of application/problem+json');
    json("404 Not Found", problem, {}, "application/problem+json; charset=utf-8");
    expect(await messages()).toBe("");
  });

  it("fails a 204 that announces content (which Prism alone would let pass)", async () => {
    respond("204 No Content", { "content-type": "application/json; charset=utf-8", "content-length": "4" });
    const judged = await judge.judge(url, { method: "delete", path: "/v1/jobs/encoder-1" });
    expect(judged.violations.map((v) => v.message)).toEqual([
      'a 204 documents no content, but its Content-Type is "application/json; charset=utf-8"',
      "a 204 documents no content, but its Content-Length is 4",
    ]);
  });

  it("fails a header that breaks its schema", async () => {
    json("200 OK", JOB, { etag: "W/weak" });
    expect(await messages()).toMatch(/pattern/);
  });

  it("fails a status that the operation does not document", async () => {
    json("418 I'm a teapot", { status: "ok" });
    const judged = await judge.judge(url, { method: "get", path: "/healthz" });
    expect(judged.violations.map((v) => v.message).join("\n")).toMatch(/Unable to match the returned status code/);
  });

  it("refuses to judge a request that no operation documents, rather than pass it", async () => {
    json("200 OK", {});
    await expect(judge.judge(url, { method: "get", path: "/v1/nothing" })).rejects.toThrow(/did not judge/);
  });
});
