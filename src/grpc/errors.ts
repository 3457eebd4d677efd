// The one error type that crosses the bridge in both directions: handlers throw it to answer
// with a status, and the client rejects with it (never with grpc-js's loosely typed
// ServiceError), so callers switch on `code` alone.
import { Metadata, status } from "@grpc/grpc-js";

export { status as Code };

export class GrpcError extends Error {
  override readonly name = "GrpcError";

  constructor(
    readonly code: status,
    /** The status message as sent on the wire (grpc-status-details aside). */
    readonly details: string,
    readonly metadata: Metadata = new Metadata(),
  ) {
    // A code outside 0-16 has no name; the log still shows which one the Manager sent.
    super(`${(status[code] as string | undefined) ?? `status ${String(code)}`}: ${details}`);
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
