// The audit log (--audit-log FILE or stderr; docs/operations/authentication.md, "Audit log"):
// one JSON line per change (a routed POST, PUT, PATCH or DELETE, whatever its answer) and per
// refusal (a 401 or 403 on any route). No change is answered before its line is written: the
// line is written by an onSend hook that waits for the write's callback, so the answer's first
// byte leaves after the line reached the file (the operating system, not the disk: no fsync).
// A change whose line cannot be written is answered 500 (AUDIT_LOG_UNWRITABLE) when it
// succeeded, since the client must not take an unaudited change as done, and as it was
// otherwise (nothing was changed); a refusal is answered as refused. Each failure is logged at
// error. AuditLine is the one source of a line's fields: the document's table and the tests'
// check are made from it.
//
// A change's line says what the Manager did (its outcome) apart from whether the client was
// there to hear it (clientLeft): a change once begun is seen through when its client leaves
// (src/operations/call-options.ts, seenThrough), so its outcome is known, and written down even
// though its answer reaches no one.
import { closeSync, createWriteStream, openSync } from "node:fs";
import type { WriteStream } from "node:fs";
import type { Writable } from "node:stream";
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler } from "fastify";
import { Code, GrpcError } from "norsk-manager-contract/grpc/errors.js";
import { PROBLEM_CONTENT_TYPE, problem, toProblem } from "../http/problem.js";
import { lineSafe } from "../http/line-safe.js";
import { SAFE_METHODS } from "../http/safe-methods.js";

const Etag = (description: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], { description }));

/** One line of the audit log. */
export const AuditLine = Type.Object(
  {
    time: Type.String({ format: "date-time", description: "when the answer was decided, RFC 3339 in UTC" }),
    event: Type.Union([Type.Literal("change"), Type.Literal("refusal")], {
      description: "`refusal`: a 401 or 403 of any request; `change`: any other answer to a POST, PUT, PATCH or DELETE of a route",
    }),
    principal: Type.Union(
      [
        Type.Object(
          {
            id: Type.String({ description: "the JWT's sub (else client_id), the API key's name, the certificate's subject, or anonymous" }),
            kind: Type.String({ description: "jwt, api-key, certificate, or anonymous (no authentication configured)" }),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ],
      { description: "who made the request: `{id, kind}`, or null when no valid credentials were shown (a 401, an open route)" },
    ),
    operation: Type.Union([Type.String(), Type.Null()], {
      description: "the OpenAPI operationId (`patchJob`); for a route the document leaves out, its method and path (`GET /metrics`); null for no route",
    }),
    target: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()], {
      description: "what the operation acts on: the path's parameters (`{\"jobId\": \"a\"}`, `{\"nodeId\": \"n\"}`, `{\"jobId\": \"a\", \"role\": \"main\"}`), or, for a route without them, the jobId its body names (a create); null when there is none",
    }),
    status: Type.Integer({
      minimum: 100,
      maximum: 599,
      description: "the HTTP status answered; when the client had left (`clientLeft`), the status its answer would have had",
    }),
    outcome: Type.Optional(
      Type.Union([Type.Literal("applied"), Type.Literal("not_applied"), Type.Literal("unknown")], {
        description:
          "of a change, what the Manager did: `applied` (a 2xx; a safe retry's 200 too, its ETags before and after the same), `not_applied` (refused, by the gateway or the Manager), or `unknown` (a call failed in a way that does not say whether it took effect: no answer before the deadline, the connection lost, an internal error); absent on a refusal, which changes nothing",
      }),
    ),
    clientLeft: Type.Optional(
      Type.Literal(true, { description: "present (true) when the client had left before the answer was sent: the outcome is the Manager's all the same" }),
    ),
    etagBefore: Etag("of a change, the job's ETag before it: the version a PATCH read, or the one If-Match named and the change matched; null: the job did not exist (a create); absent: not known"),
    etagAfter: Etag("of a change that succeeded, the job's ETag after it (the answer's ETag); null: the job no longer exists (a delete); absent: not known"),
    requestId: Type.String({ description: "the request id (X-Request-Id), also in the access log and the answer" }),
  },
  { additionalProperties: false },
);

export type AuditLine = Static<typeof AuditLine>;

/** The audit-log setting's value that writes the lines to standard error. */
export const AUDIT_STDERR = "stderr";

/** What a route knows of a change that the hook cannot see in its answer. */
export interface AuditFacts {
  readonly target?: Readonly<Record<string, string>> | undefined;
  readonly etagBefore?: string | null | undefined;
  readonly etagAfter?: string | null | undefined;
  /** What the Manager did; without it, a 2xx is `applied` and any other status `not_applied`. */
  readonly outcome?: Outcome | undefined;
}

/** What the Manager did with a change (AuditLine's `outcome`). */
export type Outcome = NonNullable<AuditLine["outcome"]>;

declare module "fastify" {
  interface FastifyRequest {
    /**
     * What the route noted of its change (noteAudit): a property of the requests of an app that
     * writes an audit log only (registerAudit), null until something is noted.
     */
    auditFacts?: AuditFacts | null;
  }
}

/** Adds what the route knows of its change to the request's line (later facts win); nothing in an app without an audit log. */
export function noteAudit(request: FastifyRequest, known: AuditFacts): void {
  if (request.auditFacts !== undefined) request.auditFacts = { ...request.auditFacts, ...known };
}

/**
 * The gRPC codes of a failed call that may have taken effect all the same: the Manager's answer
 * did not come (a deadline, a cancel, a lost connection) or does not say (an internal error,
 * an answer the gateway cannot read: UnusableAnswerError is INTERNAL). Every other code is the
 * Manager refusing the call (gRPC status codes, "Status codes and their use in gRPC").
 */
const UNCERTAIN_CODES: ReadonlySet<Code> = new Set([Code.CANCELLED, Code.UNKNOWN, Code.DEADLINE_EXCEEDED, Code.INTERNAL, Code.UNAVAILABLE, Code.DATA_LOSS]);

/**
 * The outcome of a change that failed with `error`: `unknown` for a call's failure that may have
 * taken effect, else `not_applied` (a refusal by the Manager, or one of the gateway's own, made
 * before or instead of a call: a ProblemError, a validation error).
 */
export function failedOutcome(error: unknown): Outcome {
  return error instanceof GrpcError && UNCERTAIN_CODES.has(error.code) ? "unknown" : "not_applied";
}

/** Where the lines go: a file opened for appending, or standard error. */
export class AuditLog {
  private stream: Writable | undefined;

  /**
   * Opens `target` (a path, or AUDIT_STDERR) at once, so that a path that cannot be written is
   * found at start-up; throws an Error saying why.
   */
  constructor(readonly target: string) {
    this.stream = this.open();
  }

  /** Writes `line`; resolves once it is handed to the operating system, rejects when it cannot be. */
  write(line: AuditLine): Promise<void> {
    const text = `${lineSafe(JSON.stringify(line))}\n`;
    return new Promise((resolve, reject) => {
      let stream: Writable;
      try {
        // A file whose write failed is opened again: space freed on a full disk heals the log.
        stream = this.stream ??= this.open();
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      stream.write(text, (error) => {
        if (error === null || error === undefined) {
          resolve();
          return;
        }
        if (this.stream === stream) this.stream = undefined;
        if (stream !== process.stderr) stream.destroy();
        reject(error);
      });
    });
  }

  /** Closes the file (standard error stays open). */
  close(): Promise<void> {
    const stream = this.stream;
    this.stream = undefined;
    if (stream === undefined || stream === process.stderr) return Promise.resolve();
    return new Promise((resolve) => stream.end(resolve));
  }

  private open(): Writable {
    if (this.target === AUDIT_STDERR) return process.stderr;
    const fd = openSync(this.target, "a", 0o600);
    let stream: WriteStream;
    try {
      stream = createWriteStream("", { fd, flags: "a" });
    } catch (error) {
      closeSync(fd);
      throw error;
    }
    // A failed write is told to its callback (write() above); the event must not end the process.
    stream.on("error", () => undefined);
    return stream;
  }
}

/** Writes the line of each change and refusal of `app` to `log` before its answer leaves. */
export function registerAudit(app: FastifyInstance, log: AuditLog): void {
  app.decorateRequest("auditFacts", null);
  app.addHook("onSend", auditHook(log));
}

/** The onSend hook that writes each change's and refusal's line before the answer leaves. */
function auditHook(log: AuditLog): onSendAsyncHookHandler {
  return async (request, reply, payload) => {
    const line = lineOf(request, reply);
    if (line === undefined) return payload;
    try {
      await log.write(line);
      return payload;
    } catch (error) {
      request.log.error({ reason: error instanceof Error ? error.message : String(error), audit: line }, "the audit log could not be written");
      if (line.event !== "change" || line.status >= 400) return payload;
      const answer = toProblem(problem("AUDIT_LOG_UNWRITABLE", "the audit line could not be written"), request);
      void reply.code(answer.status).type(PROBLEM_CONTENT_TYPE);
      void reply.removeHeader("etag").removeHeader("location").removeHeader("content-length");
      return JSON.stringify(answer);
    }
  };
}

/** The request's line, or undefined when it is neither a change nor a refusal. */
export function lineOf(request: FastifyRequest, reply: FastifyReply): AuditLine | undefined {
  const route = request.routeOptions.url;
  const status = reply.statusCode;
  const change = route !== undefined && !SAFE_METHODS.has(request.method);
  if (!change && status !== 401 && status !== 403) return undefined;
  const known = request.auditFacts ?? {};
  const event = status === 401 || status === 403 ? "refusal" : "change";
  const succeeded = change && status >= 200 && status < 300;
  const line: AuditLine = {
    time: new Date().toISOString(),
    event,
    principal: request.principal === null ? null : { id: request.principal.id, kind: request.principal.kind },
    operation: operationOf(request),
    target: known.target ?? targetOf(request.params) ?? createdJobOf(request.body),
    status,
    requestId: request.id,
  };
  if (event === "change") line.outcome = succeeded ? "applied" : (known.outcome ?? "not_applied");
  if (clientLeft(reply)) line.clientLeft = true;
  const etag = reply.getHeader("etag");
  const before = known.etagBefore !== undefined ? known.etagBefore : succeeded ? replacedVersion(request, status, etag) : undefined;
  if (before !== undefined) line.etagBefore = before;
  const after = known.etagAfter !== undefined ? known.etagAfter : succeeded && typeof etag === "string" ? etag : undefined;
  if (after !== undefined) line.etagAfter = after;
  return line;
}

/**
 * Whether the client had gone (its connection closed, or its HTTP/2 stream reset) before the
 * answer was sent: the onSend hook runs before a byte of it is written.
 */
function clientLeft(reply: FastifyReply): boolean {
  const raw = reply.raw as { readonly destroyed?: boolean; readonly stream?: { readonly destroyed: boolean } };
  return raw.stream === undefined ? raw.destroyed === true : raw.stream.destroyed;
}

/**
 * The version a change that succeeded replaced, where its request and answer tell: the entity
 * tag its If-Match named (it matched, or the change would have failed), or none (null) for a 201
 * that answers with the created resource's ETag. Undefined: not known.
 */
function replacedVersion(request: FastifyRequest, status: number, etag: unknown): string | null | undefined {
  const ifMatch = request.headers["if-match"]?.trim();
  if (ifMatch !== undefined && /^"[^"]*"$/.test(ifMatch)) return ifMatch;
  if (status === 201 && typeof etag === "string") return null;
  return undefined;
}

function operationOf(request: FastifyRequest): string | null {
  const { url, schema } = request.routeOptions;
  if (url === undefined) return null;
  const id = (schema as { operationId?: unknown } | undefined)?.operationId;
  return typeof id === "string" ? id : `${request.method} ${url}`;
}

/** The path's parameters, or null when the route has none. */
function targetOf(params: unknown): Record<string, string> | null {
  if (typeof params !== "object" || params === null) return null;
  const entries = Object.entries(params).filter((entry): entry is [string, string] => typeof entry[1] === "string");
  return entries.length === 0 ? null : Object.fromEntries(entries);
}

/** A create's target: the job id its body names (read only once the body was accepted). */
function createdJobOf(body: unknown): Record<string, string> | null {
  if (typeof body !== "object" || body === null || !("jobId" in body) || typeof body.jobId !== "string") return null;
  return { jobId: body.jobId };
}

/** The fields of a line, as the document's table lists them: made from AuditLine. */
export function auditFieldsTable(): string {
  const rows = Object.entries(AuditLine.properties).map(([name, schema]) => {
    const optional = !(AuditLine.required as readonly string[] | undefined ?? []).includes(name);
    const description = (schema as { description?: string }).description ?? "";
    return `| \`${name}\` | ${optional ? "no" : "yes"} | ${description.replaceAll("|", "\\|")} |`;
  });
  return ["| field | always | meaning |", "|---|---|---|", ...rows].join("\n");
}
