// Answers that carry no content by definition (RFC 9110 §6.4.1: 1xx, 204, 304) go out with
// none, and with no header that describes content: no Content-Type, and no Content-Length.
// §8.6 allows a Content-Length on a 304 only if it equals the 200's, and forbids it on 1xx and
// 204; sending none is always right. A handler may send `null` (the schema of such a response
// is Type.Null, whose serialization is the four bytes "null"): this hook is the one place
// that drops it, for every route, the HEAD routes fastify derives from GET ones included.
import { Readable } from "node:stream";
import type { FastifyReply, FastifyRequest, onSendHookHandler } from "fastify";

/** True for the statuses whose answers never carry content (RFC 9110 §6.4.1). */
export function isBodiless(status: number): boolean {
  return (status >= 100 && status < 200) || status === 204 || status === 304;
}

/**
 * onSend hook: strips the content and its headers from a bodiless answer. Fastify's own HEAD
 * route runs its onSend after every other and sets Content-Length to the size of the payload
 * it is given, unless that payload is a stream; so a HEAD answer gets an empty stream, which it
 * drains without measuring, and any other answer gets null, which fastify sends as nothing.
 */
export const bodilessAnswers: onSendHookHandler = (request: FastifyRequest, reply: FastifyReply, payload, done) => {
  if (!isBodiless(reply.statusCode)) {
    done(null, payload);
    return;
  }
  void reply.removeHeader("content-type").removeHeader("content-length");
  done(null, request.method === "HEAD" ? Readable.from([]) : null);
};
