// The statuses the reference Manager answers with, each message naming the field or record
// concerned, so that a gateway can show them to its users unchanged.
import { Code, GrpcError } from "../grpc/index.js";

/** Returns `value` when it is a non-empty string, else throws INVALID_ARGUMENT "<field> is required". */
export function required(value: string | undefined, field: string): string {
  if (value === undefined || value === "") throw new GrpcError(Code.INVALID_ARGUMENT, `${field} is required`);
  return value;
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
