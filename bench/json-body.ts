// npm run bench:json: what reading a JSON body strictly (src/json/body.ts: UTF-8 checked,
// repeated and poisoning keys refused) costs against fastify's own JSON parser, which is what
// the gateway used before, on a job body of about 2 KB. In-process, no I/O: best of many
// batches, so that other work on the machine shows as little as it can.
import Fastify from "fastify";
import type { FastifyRequest } from "fastify";
import { parseJsonBody } from "../src/json/body.js";
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
