// A call that failed because the connection under it went away, not because of anything the
// call asked: the Manager is unavailable for the moment (UNAVAILABLE, a 503), and a read can
// safely be made again. grpc-js reports most of these as UNAVAILABLE already ("Connection
// dropped", no connection), except one: when the server closes the HTTP/2 session with an error
// (a GOAWAY with an error code, as a Node server does after too many cancelled streams, its
// rapid-reset protection), Node destroys the session, and every call on it ends as INTERNAL
// "Received RST_STREAM with code 2 triggered by internal client error: Session closed with
// error code 2". That one is recognised by its exact text, nothing looser: any other INTERNAL
// (a Manager's own failure, a stream reset with an error on its own) stays a 500.
import { Code, GrpcError, classifyLocal } from "./errors.js";

const SESSION_CLOSED = /^Received RST_STREAM with code \d+ triggered by internal client error: Session closed with error code \d+$/;

/** True for grpc-js's report of a call whose HTTP/2 session the server closed with an error. */
export function isSessionClosed(error: GrpcError): boolean {
  return error.code === Code.INTERNAL && SESSION_CLOSED.test(error.details);
}

/**
 * Anything a client call failed with, as a GrpcError; a closed session becomes UNAVAILABLE, as
 * every other lost connection already is, and grpc-js's own faults are told apart (classifyLocal).
 */
export function callError(error: unknown): GrpcError {
  const grpc = classifyLocal(GrpcError.from(error));
  if (!isSessionClosed(grpc)) return grpc;
  return new GrpcError(Code.UNAVAILABLE, `the Manager closed the connection (${grpc.details})`, grpc.metadata);
}

/** True when a read that failed with `error` may be made again: its connection went away. */
export function isRetryableRead(error: unknown): boolean {
  return error instanceof GrpcError && error.code === Code.UNAVAILABLE;
}

/**
 * Runs `read`, and once more if it failed because its connection went away (a new call gets a
 * new connection). Only for reads: a write that failed so may or may not have been made.
 */
export async function readWithRetry<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (!isRetryableRead(error) || signal?.aborted === true) throw error;
    return read();
  }
}
