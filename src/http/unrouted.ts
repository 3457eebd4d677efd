// Answers to requests that never reach a route: node's HTTP parser refusing the bytes (bad
// chunking, Content-Length with Transfer-Encoding, headers over the size limit), the router
// refusing the URL (malformed percent-encoding, an over-long segment), and expectations node
// would answer itself. Left alone, node and fastify answer these in their own formats, some
// quoting the URL back; here they are problems like every other answer (docs/architecture.md, "HTTP
// surface").
//
// Such a problem never quotes the request. Its `instance` is not the URL (there may be none that
// could be read, or it is the very thing that is wrong) but `urn:uuid:<uuid>`, a fresh identifier
// of the occurrence, which RFC 9457 §3.1.5 allows for an instance that cannot be dereferenced;
// it is logged with the request's id (at debug level: these are the client's mistakes, and a
// flood of them must not flood the log), so that one leads to the other.
import { randomUUID } from "node:crypto";
import { STATUS_CODES, maxHeaderSize } from "node:http";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ConnectionError, FastifyBaseLogger, FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { PROBLEM_CONTENT_TYPE, toProblem } from "./problem.js";
import type { ProblemJson } from "../../schemas/common.js";
import { requestIdOf } from "./request-id.js";
import { problemCodeOf, statusOf } from "./status.js";
import type { Failure } from "./status.js";

/** The problem for a request answered outside the routes, its instance a fresh urn:uuid. */
function unroutedProblem(failure: Failure, detail: string, requestId: string): ProblemJson {
  const status = statusOf(failure);
  const problem: ProblemJson = {
    type: "about:blank",
    title: STATUS_CODES[status] ?? "Error",
    status,
    detail,
    instance: `urn:uuid:${randomUUID()}`,
    requestId,
  };
  const code = problemCodeOf(failure);
  if (code !== undefined) problem.code = code;
  return problem;
}

/** fastify's `frameworkErrors`: a URL the router cannot take (toProblem words it), answered without it. */
export function frameworkErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const problem: ProblemJson = { ...toProblem(error, { id: request.id, url: "" }), instance: `urn:uuid:${randomUUID()}` };
  request.log.debug({ instance: problem.instance, code: error.code }, "request refused before routing");
  // A string, not the object: this reply has no route, so no serializer to hand it to.
  void reply
    .code(problem.status)
    .header("x-request-id", request.id)
    .header("content-type", PROBLEM_CONTENT_TYPE)
    .send(JSON.stringify(problem));
}

/** llhttp's codes for a body whose length cannot be known for sure: request smuggling's ground. */
const FRAMING = new Set(["HPE_INVALID_CONTENT_LENGTH", "HPE_INVALID_TRANSFER_ENCODING", "HPE_UNEXPECTED_CONTENT_LENGTH"]);

/** The timeouts a request is cut by (src/server/limits.ts), named in the 408's detail. */
export interface RequestTimeouts {
  readonly headerTimeoutMs: number;
  readonly bodyTimeoutMs: number;
}

/** The detail of a 408: which part of the request did not arrive in time (HTTP/1.1 and HTTP/2 alike). */
export function requestTimeoutDetail(part: "headers" | "body", timeouts: RequestTimeouts): string {
  return part === "headers"
    ? `the request's headers did not arrive within ${timeouts.headerTimeoutMs} ms`
    : `the request did not arrive in full within ${timeouts.bodyTimeoutMs} ms`;
}

/** What a parser error (llhttp's HPE_* codes, or node's own) is answered with. */
function clientErrorAnswer(error: ConnectionError, socket: Socket, timeouts: RequestTimeouts): { failure: Failure; detail: string } {
  const { code } = error;
  if (code === "HPE_HEADER_OVERFLOW") {
    return { failure: "REQUEST_HEADER_FIELDS_TOO_LARGE", detail: `the request line and headers together are larger than ${maxHeaderSize} bytes` };
  }
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    // node times out headers and whole requests alike; a request whose headers arrived has a response.
    return { failure: "REQUEST_TIMEOUT", detail: requestTimeoutDetail(currentResponse(socket) === undefined ? "headers" : "body", timeouts) };
  }
  if (code === "HPE_CHUNK_EXTENSIONS_OVERFLOW") return { failure: "CONTENT_TOO_LARGE", detail: "the chunk extensions of the body are too large" };
  if (FRAMING.has(code)) {
    // llhttp's reason is the only place that tells "both sent" (request smuggling's shape) apart.
    return error.message.includes("can't be present with")
      ? { failure: "BAD_REQUEST", detail: "Content-Length and Transfer-Encoding must not be sent together" }
      : { failure: "BAD_REQUEST", detail: "the Content-Length or Transfer-Encoding header is invalid" };
  }
  if (code.includes("CHUNK")) return { failure: "BAD_REQUEST", detail: "the chunked request body is malformed" };
  if (code === "HPE_INVALID_HEADER_TOKEN") return { failure: "BAD_REQUEST", detail: "a request header holds a character HTTP does not allow" };
  return { failure: "BAD_REQUEST", detail: "the request is not valid HTTP/1.1" };
}

/**
 * True when a response to an earlier request on the socket has begun: an answer written now
 * would land inside it. node's own handler makes the same check, on the same field.
 */
function responseUnderway(socket: Socket): boolean {
  return currentResponse(socket)?.headersSent === true;
}

/** Whether the request node could not read was a HEAD, as far as its bytes tell. */
function isHead(error: ConnectionError): boolean {
  const raw = (error as ConnectionError & { rawPacket?: unknown }).rawPacket;
  return Buffer.isBuffer(raw) && raw.subarray(0, 5).toString("latin1") === "HEAD ";
}

/** The response of the request being read on `socket`, once its headers have arrived. */
function currentResponse(socket: Socket): ServerResponse | undefined {
  return (socket as Socket & { _httpMessage?: ServerResponse | null })._httpMessage ?? undefined;
}

/** fastify's `clientErrorHandler` (called with fastify as `this`): node could not read the request, or cut it for time; answer, then close. */
export function clientErrorHandler(timeouts: RequestTimeouts) {
  return function onClientError(this: { readonly log: FastifyBaseLogger }, error: ConnectionError, socket: Socket): void {
    // The client is gone: there is no one to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    // The request's own id when its headers arrived (so the client can match the answer), else a new one.
    const id = requestIdOf(currentResponse(socket)?.req.headers["x-request-id"]);
    const { failure, detail } = clientErrorAnswer(error, socket, timeouts);
    const problem = unroutedProblem(failure, detail, id);
    this.log.debug({ requestId: id, instance: problem.instance, code: error.code }, "unreadable request refused");
    if (socket.writable && !responseUnderway(socket)) {
      const body = JSON.stringify(problem);
      // The answer to a HEAD has the headers of a GET's and no content (RFC 9110 §9.3.2): a
      // client reads none, and would take the body for the start of a next response.
      const content = isHead(error) ? "" : body;
      socket.write(
        `HTTP/1.1 ${problem.status} ${problem.title}\r\ncontent-type: ${PROBLEM_CONTENT_TYPE}\r\n` +
          `content-length: ${Buffer.byteLength(body)}\r\nx-request-id: ${id}\r\nconnection: close\r\n\r\n${content}`,
      );
    }
    socket.destroy();
  };
}

/**
 * The server's 'checkExpectation' listener, for an Expect header other than 100-continue
 * (which node answers itself): RFC 9110 §10.1.1 requires a 417.
 */
export function expectationHandler(log: FastifyBaseLogger): (request: IncomingMessage, response: ServerResponse) => void {
  return (_request, response) => {
    const id = randomUUID();
    const problem = unroutedProblem("EXPECTATION_FAILED", "the only expectation this gateway meets is 100-continue", id);
    problem.errors = [{ header: "expect", message: "is not 100-continue" }];
    log.debug({ requestId: id, instance: problem.instance }, "unmet expectation refused");
    const body = JSON.stringify(problem);
    response.writeHead(problem.status, {
      "content-type": PROBLEM_CONTENT_TYPE,
      "content-length": Buffer.byteLength(body),
      "x-request-id": id,
      connection: "close",
    });
    response.end(body);
  };
}

/**
 * The server's 'connect' listener: CONNECT asks for a tunnel, which this gateway, not a proxy,
 * never opens. node would close the connection without a word; a 405 problem says why. Over
 * HTTP/1.1 the connection is handed over as a socket (closed after the answer); over HTTP/2
 * the request has a response of its own.
 */
export function connectHandler(log: FastifyBaseLogger): (request: IncomingMessage, target: Socket | ServerResponse) => void {
  return (request, target) => {
    const id = requestIdOf(request.headers["x-request-id"]);
    const problem = unroutedProblem("METHOD_NOT_ALLOWED", "CONNECT is not served: this gateway opens no tunnels", id);
    log.debug({ requestId: id, instance: problem.instance }, "CONNECT refused");
    const body = JSON.stringify(problem);
    const headers = { "content-type": PROBLEM_CONTENT_TYPE, "content-length": Buffer.byteLength(body), "x-request-id": id, allow: "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS" };
    if ("writeHead" in target) {
      target.writeHead(problem.status, headers);
      target.end(body);
      return;
    }
    if (target.writable) {
      const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
      target.end(`HTTP/1.1 ${problem.status} ${problem.title}\r\n${lines}connection: close\r\n\r\n${body}`);
    }
    target.destroySoon();
  };
}
