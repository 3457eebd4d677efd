// Compressed answers (src/server/compression.ts), over real sockets: a 1,000-job list from a
// reference Manager (seeded on disk) in gzip and br, each decoding to the very answer sent
// without coding and gzip's at most a fifth of its bytes; Vary on every JSON answer; small
// answers and event streams as they are; the OpenAPI document coded once; and a compressed
// NDJSON search whose first line arrives, decoded, while the Manager still holds the rest.
import { mkdtemp } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import type { IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliDecompressSync, createGunzip, gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../helpers/gateway.js";
import type { GatewayUnderTest } from "../helpers/gateway.js";
import { seedJobs } from "../helpers/seed-jobs.js";
import { stubGateway } from "../helpers/stub-manager.js";
import type { StubGateway } from "../helpers/stub-manager.js";

const COUNT = 1_000;

interface Raw {
  readonly status: number;
  readonly headers: IncomingMessage["headers"];
  readonly body: Buffer;
}

/** GET `url` with `headers`, the body as sent on the wire (not decoded). */
function getRaw(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => {
        chunks.push(chunk);
      });
      response.once("end", () => {
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
      response.once("error", reject);
    })
      .once("error", reject)
      .end();
  });
}

describe("a 1,000-job list from the reference Manager", () => {
  let manager: RunningManager;
  let gw: GatewayUnderTest;
  let plain: Raw;

  beforeAll(async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "compression-"));
    seedJobs(dataDir, COUNT);
    manager = await startManager({ port: 0, dataDir });
    gw = await gatewayTo(manager.address, { listen: true });
    plain = await getRaw(`${gw.url}/v1/jobs`, {});
  }, 60_000);

  afterAll(async () => {
    await gw.close();
    await manager.close();
  });

  it("is sent as it is, saying Vary: Accept-Encoding, to a client that asks for no coding", () => {
    expect(plain.status).toBe(200);
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(plain.headers.vary).toMatch(/accept-encoding/i);
    expect((JSON.parse(plain.body.toString("utf8")) as { jobs: unknown[] }).jobs).toHaveLength(COUNT);
  });

  it("is gzip'd to at most a fifth of its bytes, decoding to the very same answer", async () => {
    const zipped = await getRaw(`${gw.url}/v1/jobs`, { "accept-encoding": "gzip" });
    expect(zipped.status).toBe(200);
    expect(zipped.headers["content-encoding"]).toBe("gzip");
    expect(zipped.headers.vary).toMatch(/accept-encoding/i);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    expect(zipped.body.length).toBeLessThanOrEqual(plain.body.length / 5);
  });

  it("is sent in br when the client prefers it, decoding to the very same answer", async () => {
    const coded = await getRaw(`${gw.url}/v1/jobs`, { "accept-encoding": "gzip;q=0.5, br" });
    expect(coded.headers["content-encoding"]).toBe("br");
    expect(brotliDecompressSync(coded.body).equals(plain.body)).toBe(true);
    expect(coded.body.length).toBeLessThanOrEqual(plain.body.length / 5);
  });

  it("is sent as NDJSON in gzip, every line there once decoded", async () => {
    const coded = await getRaw(`${gw.url}/v1/jobs`, { accept: "application/x-ndjson", "accept-encoding": "gzip" });
    expect(coded.headers["content-encoding"]).toBe("gzip");
    const lines = gunzipSync(coded.body).toString("utf8").trimEnd().split("\n");
    expect(lines).toHaveLength(COUNT);
  });

  it("is sent as it is when the client refuses every coding but identity", async () => {
    const answer = await getRaw(`${gw.url}/v1/jobs`, { "accept-encoding": "gzip;q=0, br;q=0, identity" });
    expect(answer.headers["content-encoding"]).toBeUndefined();
    expect(answer.body.equals(plain.body)).toBe(true);
  });

  it("leaves an answer under the threshold as it is", async () => {
    const missing = await getRaw(`${gw.url}/v1/jobs/absent`, { "accept-encoding": "gzip, br" });
    expect(missing.status).toBe(404);
    expect(missing.headers["content-encoding"]).toBeUndefined();
    expect(JSON.parse(missing.body.toString("utf8"))).toMatchObject({ status: 404 });
  });

  it("codes the OpenAPI document once: one gunzip gives the JSON document", async () => {
    const doc = await getRaw(`${gw.url}/openapi.json`, { "accept-encoding": "gzip" });
    expect(doc.headers["content-encoding"]).toBe("gzip");
    expect(JSON.parse(gunzipSync(doc.body).toString("utf8"))).toHaveProperty("openapi");
  });

  it("never codes an event stream, whatever the client accepts", async () => {
    const headers = await new Promise<IncomingMessage["headers"]>((resolve, reject) => {
      const request = httpRequest(`${gw.url}/v1/events`, { headers: { accept: "application/x-ndjson", "accept-encoding": "gzip, br" } }, (response) => {
        resolve(response.headers);
        request.destroy();
      });
      request.once("error", reject).end();
    });
    expect(headers["content-encoding"]).toBeUndefined();
  });
});

describe("a compressed NDJSON search", () => {
  let gw: StubGateway;
  let url: string;
  /** Lets the stub Manager send the rest of the list. */
  let release: () => void = () => undefined;
  const rest = new Promise<void>((resolve) => {
    release = resolve;
  });

  beforeAll(async () => {
    gw = await stubGateway({
      jobSearch: async function* () {
        yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: "first" }, description: "x".repeat(4_000) }) });
        // The rest waits until the client has read the first line: a gateway that held its
        // coded output until the end would never let it.
        await rest;
        yield create(CurrentJobSchema, { job: create(JobSchema, { jobId: { jobId: "second" } }) });
      },
    });
    url = await gw.app.listen({ port: 0, host: "127.0.0.1" });
  });

  afterAll(async () => {
    release();
    await gw.close();
  });

  it("delivers its first line, decoded, before the Manager has sent the rest", async () => {
    const lines = await new Promise<string[]>((resolve, reject) => {
      httpRequest(`${url}/v1/jobs`, { headers: { accept: "application/x-ndjson", "accept-encoding": "gzip" } }, (response) => {
        expect(response.headers["content-encoding"]).toBe("gzip");
        const seen: string[] = [];
        let text = "";
        const gunzip = response.pipe(createGunzip());
        gunzip.setEncoding("utf8");
        gunzip.on("data", (chunk: string) => {
          text += chunk;
          const complete = text.split("\n");
          text = complete.pop() ?? "";
          for (const line of complete) {
            seen.push(line);
            // The first line arrived while the Manager still held the second.
            if (seen.length === 1) release();
          }
        });
        gunzip.once("end", () => {
          resolve(seen);
        });
        gunzip.once("error", reject);
      })
        .once("error", reject)
        .end();
    });
    expect(lines.map((line) => (JSON.parse(line) as { jobId: string }).jobId)).toEqual(["first", "second"]);
  });
});
