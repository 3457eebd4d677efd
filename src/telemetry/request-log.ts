// fastify's own lines of each request ("incoming request", "request completed", at
// --log-level debug and trace; a 5xx's error line) describe the request with the `req`
// serializer below: fastify's own fields, with the URL's credentials redacted
// (src/http/credential-query.ts), so that a token a client put in the query string is written
// at no level.
import type { FastifyRequest } from "fastify";
import { redactedUrl } from "../http/credential-query.js";

/** What a log line's `req` says of a request: fastify's fields (lib/logger-pino.js), the URL redacted. */
// A type, not an interface: pino's serializers take a record (an index signature).
export type LoggedRequest = {
  readonly method: string;
  readonly url: string;
  /** The Accept-Version header (fastify's route versioning), when one was sent. */
  readonly version: string | undefined;
  readonly host: string;
  readonly remoteAddress: string;
  readonly remotePort: number | undefined;
};

/** The `req` serializer of the gateway's logger. */
export function requestForLog(request: FastifyRequest): LoggedRequest {
  return {
    method: request.method,
    url: redactedUrl(request.url),
    version: acceptVersion(request.headers["accept-version"]),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket.remotePort,
  };
}

function acceptVersion(header: string | string[] | undefined): string | undefined {
  return Array.isArray(header) ? header.join(", ") : header;
}

/** The serializers the gateway's logger is given, over those of its options or instance. */
export const LOG_SERIALIZERS = { req: requestForLog } as const;
