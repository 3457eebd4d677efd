// Retry-After on every 503 (docs/reference/errors.md, "503 and Retry-After"): whatever made it
// (the Manager unavailable, load shedding, a shutdown, /readyz), a 503 says when to try again,
// and this hook is the one place that decides the value: --shed-retry-after's seconds, the
// delay that lets an overloaded or restarting gateway or Manager recover.
import type { FastifyReply, FastifyRequest } from "fastify";

/** An onSend hook giving each 503 a Retry-After of `seconds`. */
export function retryAfterOn503(seconds: number) {
  const value = String(seconds);
  return function retryAfter(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
    if (reply.statusCode === 503) void reply.header("retry-after", value);
    done(null, payload);
  };
}
