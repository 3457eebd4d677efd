// The error responses as the OpenAPI document words them: what each error status means, and the
// problem shown as its example. The statuses and codes themselves are src/http/status.ts's; a
// route names the failures an operation ends in (src/http/responses.ts) and leaves the meaning
// of a status it does not word itself to this file.
import { status as Code } from "@grpc/grpc-js";
import type { ProblemItemJson } from "../../schemas/common.js";
import { STATUS_MEANING } from "../http/responses.js";
import { isCodeName, problemCodeOf, redactedDetail, statusOf } from "../http/status.js";
import type { CodeName, Failure } from "../http/status.js";
import { unauthenticatedDetail } from "../auth/access.js";

/** After the code's name where a description lists the codes answered with its status. */
const GLOSS: { readonly [C in CodeName]?: string } = {
  ABORTED: "a concurrent change won",
};

/** A typical problem of a status, as the document shows it. */
export interface ProblemSample {
  readonly status: number;
  readonly code?: CodeName;
  readonly detail: string;
  readonly errors?: readonly ProblemItemJson[];
}

interface StatusWording {
  /** The meaning of the status, given the gRPC codes answered with it (each with its gloss). */
  readonly describes?: (codes: readonly string[]) => string;
  /** The example's failure; its detail a 5xx's redacted one unless given. */
  readonly example?: { readonly failure: Failure; readonly detail?: string; readonly errors?: readonly ProblemItemJson[] };
}

/**
 * What the document says of each error status it describes. A status not here (429,
 * 501) is worded by each operation or says to read the detail, and shows the bare reason phrase
 * as its example; the document's 429s are the write queue's.
 */
const WORDINGS: Readonly<Record<number, StatusWording>> = {
  400: {
    describes: (codes) => `the request is invalid (each problem located in \`errors\`), or the Manager refused it (${codes.join(", ")})`,
    example: {
      failure: "INVALID_ARGUMENT",
      detail: "Grpc-Timeout must be 1 to 8 digits and a unit (H, M, S, m, u, n), e.g. 500m",
      errors: [{ header: "grpc-timeout", message: "is not a valid gRPC timeout" }],
    },
  },
  401: {
    describes: () => "the request has no valid credentials (a bearer token, an API key or a client certificate; the detail names those the gateway accepts); WWW-Authenticate says error=\"invalid_token\"",
    // A gateway that takes bearer tokens and API keys.
    example: { failure: "UNAUTHENTICATED", detail: unauthenticatedDetail({ bearer: true, apiKey: true, certificate: false }) },
  },
  403: {
    describes: () => "the credentials do not carry the operation's scope (WWW-Authenticate names it), or a cross-site request was refused",
    example: { failure: "PERMISSION_DENIED", detail: "the credentials do not carry the scope jobs:write" },
  },
  404: { describes: () => "the resource does not exist", example: { failure: "NOT_FOUND", detail: 'job "encoder-1" does not exist' } },
  405: {
    describes: () => "the path is served, but not with this method; Allow lists the methods that are",
    example: { failure: "METHOD_NOT_ALLOWED", detail: "PUT is not served at this path; Allow lists the methods that are" },
  },
  406: {
    describes: () => "Accept admits none of the media types this operation answers with (q=0 refuses one; */* admits all)",
    example: {
      failure: "NOT_ACCEPTABLE",
      detail: "Accept admits none of the media types this operation answers with: application/json",
      errors: [{ header: "accept", message: "admits none of application/json" }],
    },
  },
  409: {
    describes: (codes) => `the Manager refused the change: ${codes.join(", or ")}`,
    example: { failure: "ALREADY_EXISTS", detail: "a different job with this jobId already exists" },
  },
  412: {
    describes: () => 'If-Match (or a non-zero currentHash in the body) does not match the job\'s current ETag, or is "0", a version the Manager cannot test; nothing was written',
    example: { failure: "PRECONDITION_FAILED", detail: "the job's ETag differs from If-Match" },
  },
  413: {
    describes: () => "the request body is larger than the gateway accepts (1 MiB by default)",
    example: { failure: "CONTENT_TOO_LARGE", detail: "Request body is too large" },
  },
  415: {
    describes: () => "the request's Content-Type is not one this operation accepts",
    example: { failure: "UNSUPPORTED_MEDIA_TYPE", detail: "Content-Type must be application/json" },
  },
  500: {
    describes: () => "the gateway or the Manager failed; the detail says nothing about internals, the request id finds it in the log",
    example: { failure: "INTERNAL_SERVER_ERROR" },
  },
  502: {
    describes: () =>
      "the Manager sent an answer the gateway cannot use (larger than --max-message-size, undecodable, or holding data JSON cannot carry); the request id finds the cause in the log",
    example: { failure: "BAD_GATEWAY" },
  },
  503: {
    describes: (codes) =>
      `the Manager cannot be reached (${codes.join(", ")}), or the gateway is overloaded or shutting down and refuses new requests, or the token issuer's keys cannot be fetched; try again after the Retry-After delay`,
    example: { failure: "UNAVAILABLE" },
  },
  504: {
    describes: () => "the Manager did not answer in time: within the request timeout (of a list, its first result), or before the Grpc-Timeout",
    example: { failure: "DEADLINE_EXCEEDED" },
  },
};

/** The gRPC codes answered with `status`, each with its gloss, in the codes' order. */
function codesOfStatus(status: number): string[] {
  return Object.keys(Code)
    .filter(isCodeName)
    .filter((name) => statusOf(name) === status)
    .map((name) => (GLOSS[name] === undefined ? name : `${name} (${GLOSS[name]})`));
}

/** The document's description of an error status (without the reason phrase), if it has one. */
export function statusDescription(status: number): string | undefined {
  return WORDINGS[status]?.describes?.(codesOfStatus(status));
}

/**
 * A problem response's description with the meaning of its status put where the route left it
 * to the document (src/http/responses.ts, STATUS_MEANING).
 */
export function describedResponse(status: number, description: string): string {
  return description.replaceAll(STATUS_MEANING, statusDescription(status) ?? "see the problem's detail");
}

/** The document's example problem of `status`, if it has one. */
export function problemSample(status: number): ProblemSample | undefined {
  const example = WORDINGS[status]?.example;
  if (example === undefined) return undefined;
  return sample(example.failure, example.detail ?? redactedDetail(example.failure), example.errors);
}

/** The example of the `default` response (any error a route does not list): a Manager's 429. */
export const OTHER_FAILURE_SAMPLE: ProblemSample = sample("RESOURCE_EXHAUSTED", "too many requests");

function sample(failure: Failure, detail: string, errors?: readonly ProblemItemJson[]): ProblemSample {
  const code = problemCodeOf(failure);
  return { status: statusOf(failure), ...(code === undefined ? {} : { code }), detail, ...(errors === undefined ? {} : { errors }) };
}

