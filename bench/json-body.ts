// npm run bench:json: what reading a JSON body strictly (src/json/body.ts: UTF-8 checked,
// repeated and poisoning keys refused) costs against fastify's own JSON parser, which is what
// the gateway used before, on a job body of about 2 KB. In-process, no I/O: best of many
// batches, so that other work on the machine shows as little as it can.
import Fastify from "fastify";
import type { FastifyRequest } from "fastify";
import { parseJsonBody } from "../src/json/body.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 100);
const PER_BATCH = 10_000;

const service = (i: number): Record<string, unknown> => ({
  name: `service-${i}`,
  docker: { containerUrl: "docker.io/norskvideo/norsk:latest" },
  restart: "on_failure",
  dependsOn: ["norsk"],
  configuration: '{"profile": "hd"}',
  restartCount: 3,
  restartPeriod: 60,
  command: "run --fast",
  parameters: { cpuSet: [0, 1, 2, 3], portMappings: [{ containerPort: 8080, ephemeral: {} }] },
});
const job = {
  jobId: "encoder-1",
  description: "Christmas Eve stream",
  tags: { env: "prod", tier: "gold", region: "eu-west-1" },
  startDateTime: "2026-12-24T18:00:00.123456789Z",
  services: [0, 1, 2, 3, 4, 5].map(service),
  norskMediaVersion: "recommended",
};
const bytes = Buffer.from(JSON.stringify(job));

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

function bestMicroseconds(run: () => unknown): number {
  let best = Infinity;
  for (let batch = 0; batch < BATCHES; batch++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < PER_BATCH; i++) run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / PER_BATCH / 1_000);
  }
  return best;
}

const results = { fastify: Infinity, strict: Infinity };
// Interleaved rounds, so that both see the same machine.
for (let round = 0; round < 3; round++) {
  results.fastify = Math.min(results.fastify, bestMicroseconds(viaFastify));
  results.strict = Math.min(results.strict, bestMicroseconds(() => parseJsonBody(bytes)));
}
console.log(`job body of ${bytes.length} bytes, best of 3 x ${BATCHES} batches of ${PER_BATCH}:`);
console.log(`  fastify's JSON parser  ${results.fastify.toFixed(2)} µs`);
console.log(`  parseJsonBody          ${results.strict.toFixed(2)} µs  (${(results.strict / results.fastify).toFixed(2)}x)`);
