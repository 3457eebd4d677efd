// npm run bench:steps: what each step of a request's own work costs, in-process and without I/O,
// for the body of a full job (six services, nanosecond start time): reading the body, Ajv's
// check of it (with the int64 and date-time formats, and with those formats made free, to show
// what checking them costs), the mirror's JSON to message, protobuf encoding for the call and
// decoding of the answer, message to JSON and the response serialiser; for PATCH, the merge of
// a one-field patch into the job (and the whole-message merge it replaced); for a search, the query string read. Best of many batches, in
// interleaved rounds, so that other work on the machine shows as little as it can. Compare each
// figure with a request's whole CPU in `npm run bench` (about 550 µs for a PUT).
import { clone, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Ajv } from "ajv";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { parseJsonBody } from "../src/json/body.js";
import { applyMergePatch, jobFromJson, jobToJson, mergePatchMessage } from "../src/json/index.js";
import { searchOfUrl } from "../src/operations/job-search.js";
import { gatewayFormats } from "../schemas/formats.js";
import { JobInputJson } from "../schemas/job.js";
import { JOB_BYTES, bestMicroseconds as bestOf } from "./micro.js";
import { stringifyJob as stringify, validateJobInput as validate, validateSearchQuery as validateQuery } from "./steps.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 40);
const PER_BATCH = 2_000;
const ROUNDS = 3;

const bytes = JOB_BYTES;

// The route's own validator for a PUT body (steps.ts), and the same schema with the formats made free.
const freeFormats = Object.fromEntries(Object.keys(gatewayFormats).map((name) => [name, () => true]));
const validateNoFormats = new Ajv({ allErrors: true, strict: false, coerceTypes: false, formats: freeFormats, keywords: ["example", "x-enum-names"] }).compile(JobInputJson);
// The query as fastify's parser leaves it, repeatable parameters already arrays (so that the
// check changes nothing and can be repeated).
const query = { tag: ["env:prod", "tier:gold"], idMatch: ["^encoder-"], startAfter: ["2026-12-01T00:00:00Z"], limit: 100 };

const parsed = parseJsonBody(bytes);
const job = jobFromJson(parsed);
job.currentHash = 1234567890123456789n;
const encoded = toBinary(JobSchema, job);
const patch = { description: "patched" };
const searchUrl = "/v1/jobs?tag=env:prod&tag=tier:gold&idMatch=%5Eencoder-&startAfter=2026-12-01T00:00:00Z&limit=100";

const steps: Record<string, () => unknown> = {
  "PUT body read (parseJsonBody)": () => parseJsonBody(bytes),
  "Ajv check of the body, as the route does it": () => validate(parsed),
  "Ajv check of the body, formats made free": () => validateNoFormats(parsed),
  "mirror: JSON to Job (jobFromJson)": () => jobFromJson(parsed),
  "protobuf encoding of the Job (the call)": () => toBinary(JobSchema, job),
  "protobuf decoding of a Job (an answer)": () => fromBinary(JobSchema, encoded),
  "mirror: Job to JSON (jobToJson)": () => jobToJson(job),
  "response serialiser (fast-json-stringify)": () => stringify(jobToJson(job)),
  "PATCH: merge of a one-field patch (mergePatchMessage)": () => mergePatchMessage(JobSchema, job, patch),
  // What mergePatchMessage did before it converted only the named fields (its field copy aside).
  "PATCH, as before: whole job to JSON, merged, read back, deep copy": () => [jobFromJson(applyMergePatch(jobToJson(job), patch)), clone(JobSchema, job)],
  "search: Ajv check of the parsed query, as the route does it": () => validateQuery(query),
  "search: query string to JobSearchRequest (searchOfUrl)": () => searchOfUrl(searchUrl),
};

const bestMicroseconds = (run: () => unknown): number => bestOf(run, BATCHES, PER_BATCH);

if (!validate(parsed) || !validateNoFormats(parsed) || !validateQuery(query)) throw new Error("the benchmark's body must be valid");
const best = new Map<string, number>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(steps)) best.set(name, Math.min(best.get(name) ?? Infinity, bestMicroseconds(run)));
}
console.log(`job body of ${bytes.length} bytes; best of ${ROUNDS} x ${BATCHES} batches of ${PER_BATCH}, µs per step:`);
for (const [name, us] of best) console.log(`  ${name.padEnd(66)} ${us.toFixed(2).padStart(7)}`);
