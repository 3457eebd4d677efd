// The statuses the reference Manager answers with, each message naming the field or record
// concerned, so that a gateway can show them to its users unchanged.
import { Code, GrpcError } from "norsk-manager-contract/grpc/index.js";
import { idProblem } from "norsk-manager-contract/lexical/ids.js";

/** Returns `value` when it is a non-empty string, else throws INVALID_ARGUMENT "<field> is required". */
export function required(value: string | undefined, field: string): string {
  if (value === undefined || value === "") throw new GrpcError(Code.INVALID_ARGUMENT, `${field} is required`);
  return value;
}

/**
 * Returns `value` when it is an id that an HTTP path can address (src/lexical/ids.ts: 1-256
 * characters, no control characters, not "." or ".."), else throws INVALID_ARGUMENT naming
 * the field. For ids a call creates: a record the gateway could not reach is never made.
 */
export function requiredId(value: string | undefined, field: string): string {
  const id = required(value, field);
  const problem = idProblem(id);
  if (problem !== undefined) throw new GrpcError(Code.INVALID_ARGUMENT, `${field} ${problem}`);
  return id;
}

export function invalidArgument(message: string): GrpcError {
  return new GrpcError(Code.INVALID_ARGUMENT, message);
}

export function notFound(message: string): GrpcError {
  return new GrpcError(Code.NOT_FOUND, message);
}

export function alreadyExists(message: string): GrpcError {
  return new GrpcError(Code.ALREADY_EXISTS, message);
}

export function failedPrecondition(message: string): GrpcError {
  return new GrpcError(Code.FAILED_PRECONDITION, message);
}

export function aborted(message: string): GrpcError {
  return new GrpcError(Code.ABORTED, message);
}
