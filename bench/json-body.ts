// npm run bench:json: what reading a JSON body strictly (src/json/body.ts: UTF-8 checked,
// repeated and poisoning keys refused) costs against fastify's own JSON parser, which is what
// the gateway used before, on a job body of about 2 KB. In-process, no I/O: best of many
// batches, so that other work on the machine shows as little as it can. Then what hostile
// bodies cost through the whole app, and how large their answers are.
import Fastify from "fastify";
import type { FastifyRequest } from "fastify";
import { parseJsonBody } from "../src/json/body.js";
import { buildApp } from "../src/app.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { JOB_BYTES, bestMicroseconds as bestOf } from "./micro.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const PER_BATCH = 10_000;

const bytes = JOB_BYTES;

const fastifyParser = Fastify().getDefaultJsonParser("error", "error");
// fastify's parser reports through a callback and never looks at the request.
const request = {} as FastifyRequest;
const viaFastify = (): unknown => {
  let parsed: unknown;
  // Synchronous for a string body: the callback has run when it returns.
  void fastifyParser(request, bytes.toString("utf8"), (error, value) => {
    if (error !== null) throw error;
    parsed = value;
  });
  return parsed;
};

const bestMicroseconds = (run: () => unknown): number => bestOf(run, BATCHES, PER_BATCH);

const results = { fastify: Infinity, strict: Infinity };
// Interleaved rounds, so that both see the same machine.
for (let round = 0; round < 3; round++) {
  results.fastify = Math.min(results.fastify, bestMicroseconds(viaFastify));
  results.strict = Math.min(results.strict, bestMicroseconds(() => parseJsonBody(bytes)));
}
console.log(`job body of ${bytes.length} bytes, best of 3 x ${BATCHES} batches of ${PER_BATCH}:`);
console.log(`  fastify's JSON parser  ${results.fastify.toFixed(2)} µs`);
console.log(`  parseJsonBody          ${results.strict.toFixed(2)} µs  (${(results.strict / results.fastify).toFixed(2)}x)`);

// Hostile bodies: what a malformed body costs the gateway from its bytes to
// its problem+json answer, through the whole app (app.inject: routing, parsing, validation, the
// problem and its serialization; no Manager is called for a 400). CPU time of the process per
// request, best of HOSTILE_ROUNDS, and the answer's size.
const HOSTILE_ROUNDS = Number(process.env.BENCH_HOSTILE_ROUNDS ?? 5);
const startDateTime = "2026-01-01T00:00:00Z";
const hostile: Readonly<Record<string, string>> = {
  "tags: one key ×100,000": `{"jobId":"h","startDateTime":"${startDateTime}","tags":{${Array.from({ length: 100_000 }, () => '"k":"v"').join(",")}}}`,
  '60,000 {"__proto__":1}': `[${Array.from({ length: 60_000 }, () => '{"__proto__":1}').join(",")}]`,
  "500,000 nested arrays": `${"[".repeat(500_000)}${"]".repeat(500_000)}`,
  "100,000 services not objects": JSON.stringify({ jobId: "h", startDateTime, services: Array.from({ length: 100_000 }, () => 1) }),
};

// A channel to nowhere: grpc-js connects on the first call, and a 400 makes none.
const connection = connectManager("127.0.0.1:9", { defaultTimeoutMs: 10_000 });
const app = await buildApp({ connection });
console.log(`\nhostile bodies through the whole app (POST /v1/jobs), best of ${HOSTILE_ROUNDS}:`);
for (const [name, body] of Object.entries(hostile)) {
  let best = Infinity;
  let answer = 0;
  let status = 0;
  for (let round = 0; round < HOSTILE_ROUNDS; round++) {
    const before = process.cpuUsage();
    const reply = await app.inject({ method: "POST", url: "/v1/jobs", headers: { "content-type": "application/json" }, payload: body });
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / 1_000);
    answer = reply.rawPayload.length;
    status = reply.statusCode;
  }
  const kb = Buffer.byteLength(body) / 1_000;
  console.log(`  ${name.padEnd(30)} ${kb.toFixed(0).padStart(5)} KB  ${status}  ${best.toFixed(1).padStart(7)} ms CPU (${((best / kb) * 100).toFixed(2)} ms per 100 KB)  answer ${answer} bytes`);
}
await app.close();
connection.close();
