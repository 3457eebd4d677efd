// Every request has an id, echoed as X-Request-Id, carried in each problem and log line, and
// passed to the Manager: the client's own X-Request-Id when it is a plain token, so that the
// client can find its request in the gateway's log, else a fresh UUID.
import { randomUUID } from "node:crypto";

/** An incoming X-Request-Id is kept if it is a plain token; anything else is replaced. */
const REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/** The id of a request whose X-Request-Id header is `given`. */
export function requestIdOf(given: string | string[] | undefined): string {
  return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
}
