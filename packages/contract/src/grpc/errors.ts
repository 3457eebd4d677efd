// The one error type that crosses the bridge in both directions: handlers throw it to answer
// with a status, and the client rejects with it (never with grpc-js's loosely typed
// ServiceError), so callers switch on `code` alone.
import { Metadata, status } from "@grpc/grpc-js";

export { status as Code };

export class GrpcError extends Error {
  override readonly name: string = "GrpcError";

  constructor(
    readonly code: status,
    /** The status message as sent on the wire (grpc-status-details aside). */
    readonly details: string,
    readonly metadata: Metadata = new Metadata(),
    /** `cause`: the error this one reports, for the log. */
    options?: ErrorOptions,
  ) {
    // A code outside 0-16 has no name; the log still shows which one the Manager sent.
    super(`${(status[code] as string | undefined) ?? `status ${String(code)}`}: ${details}`, options);
  }

  /** Normalises anything thrown into a GrpcError; an unknown error becomes INTERNAL. */
  static from(error: unknown): GrpcError {
    if (error instanceof GrpcError) return error;
    if (isServiceError(error)) return new GrpcError(error.code, error.details, error.metadata);
    return new GrpcError(status.INTERNAL, "internal error");
  }
}

interface ServiceErrorLike {
  code: status;
  details: string;
  metadata: Metadata;
}

function isServiceError(error: unknown): error is ServiceErrorLike {
  return (
    error instanceof Error &&
    "code" in error &&
    typeof error.code === "number" &&
    "details" in error &&
    typeof error.details === "string" &&
    "metadata" in error &&
    error.metadata instanceof Metadata
  );
}

/**
 * grpc-js's reports of an answer this process received and could not use, by their exact text
 * (@grpc/grpc-js's stream decoder, compression filter and client interceptors): they come as the
 * call's status, as if the Manager had sent it, and nothing looser than these texts may match,
 * or a Manager's own RESOURCE_EXHAUSTED or INTERNAL would be taken for one. A grpc-js server
 * words its own receive limit "(N vs. M)", with a dot: that is the Manager refusing a request.
 */
const UNUSABLE_ANSWERS: readonly (readonly [status, RegExp])[] = [
  [status.RESOURCE_EXHAUSTED, /^Received message larger than max \(\d+ vs \d+\)$/],
  [status.RESOURCE_EXHAUSTED, /^Received message that decompresses to a size larger than \d+$/],
  [status.INTERNAL, /^Response message parsing error: /],
  [status.INTERNAL, /^Failed to decompress (deflate|gzip)-encoded message$/],
];

export interface UnusableAnswerOptions {
  /** The metadata of the call's status, when grpc-js reported it as one. Default: none. */
  readonly metadata?: Metadata | undefined;
  /** What found the answer unusable (grpc-js's status, a decoder's error), for the log. Default: none. */
  readonly cause?: unknown;
}

/**
 * An answer the Manager sent that the gateway cannot use: larger than --max-message-size, or
 * not a message of its type. The gateway's 502 (its BAD_GATEWAY failure), never the client's
 * fault; its code is INTERNAL and its details say what was wrong, for the log only.
 */
export class UnusableAnswerError extends GrpcError {
  override readonly name = "UnusableAnswerError";

  constructor(details: string, options: UnusableAnswerOptions = {}) {
    super(status.INTERNAL, details, options.metadata, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** grpc-js's report of a request larger than its send limit (--max-message-size), by its exact text. */
const TOO_LARGE_TO_SEND = /^Attempted to send message with a size larger than \d+$/;

/**
 * A request larger than the gateway may send the Manager (--max-message-size): the client's
 * request is too large for this deployment, a 413; its details are grpc-js's text, for the log.
 */
export class TooLargeToSendError extends GrpcError {
  override readonly name = "TooLargeToSendError";

  constructor(reported: GrpcError) {
    super(status.RESOURCE_EXHAUSTED, reported.details, reported.metadata);
  }
}

/** `error` as what it is when grpc-js reported a fault of its own process (above); else itself. */
export function classifyLocal(error: GrpcError): GrpcError {
  if (error instanceof UnusableAnswerError || error instanceof TooLargeToSendError) return error;
  if (UNUSABLE_ANSWERS.some(([code, text]) => error.code === code && text.test(error.details))) {
    return new UnusableAnswerError(error.details, { metadata: error.metadata });
  }
  if (error.code === status.RESOURCE_EXHAUSTED && TOO_LARGE_TO_SEND.test(error.details)) return new TooLargeToSendError(error);
  return error;
}
