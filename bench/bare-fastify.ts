// "bare fastify" in npm run bench: fastify with its defaults (no hooks, no logger, no schemas),
// answering the request shapes the bench sends this gateway with fixed JSON texts of the same
// size as this gateway's answers, so that its CPU per request is what fastify itself costs to
// answer them. Run by plain node (processes.ts transpiles it; it imports nothing of the gateway).
// Usage: node bare-fastify.js <answers.json>, a JSON object { job: <text>, list: <text> }; prints
// "listening on <url>" once it listens on a free loopback port.
import { readFileSync } from "node:fs";
import Fastify from "fastify";

interface Answers {
  /** A job's JSON text as this gateway answers a read or a write of it. */
  readonly job: string;
  /** A search's JSON text as this gateway answers it. */
  readonly list: string;
}

const file = process.argv[2];
if (file === undefined) throw new Error("usage: bare-fastify <answers.json>");
const answers = JSON.parse(readFileSync(file, "utf8")) as Answers;

const JSON_UTF8 = "application/json; charset=utf-8";
const app = Fastify();
// A merge patch is JSON: read by fastify's own JSON parser, as application/json is.
app.addContentTypeParser("application/merge-patch+json", { parseAs: "string" }, app.getDefaultJsonParser("error", "error"));

app.get("/v1/jobs/:jobId", (_request, reply) => reply.type(JSON_UTF8).send(answers.job));
app.get("/v1/jobs", (_request, reply) => reply.type(JSON_UTF8).send(answers.list));
app.put("/v1/jobs/:jobId", (_request, reply) => reply.type(JSON_UTF8).send(answers.job));
app.patch("/v1/jobs/:jobId", (_request, reply) => reply.type(JSON_UTF8).send(answers.job));

const url = await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`listening on ${url}`);
