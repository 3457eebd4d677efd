// Compressed answers (docs/reference/http-api.md, "Compression"): @fastify/compress codes JSON,
// problem and NDJSON answers in br or gzip, as Accept-Encoding prefers, once they are at least
// COMPRESSION_THRESHOLD_BYTES long. Contracts:
// - A stream (a search's NDJSON or JSON list) is flushed at each write of its body, so that a
//   compressed stream still reaches the client as it is produced: the search body already
//   writes in batches, so a flush costs a few bytes per batch, not per job.
// - The event streams are never compressed (their routes say `compress: false`): each frame is
//   small and must arrive at once, so a flush per frame would leave little to gain, and their
//   bounded buffer (--sse-buffer) counts the bytes as the client reads them.
// - An answer already coded (the OpenAPI document, src/http/fixed-answer.ts) is left as it is.
// - Every answer of a compressible type says Vary: Accept-Encoding, compressed or not (an event
//   stream's NDJSON too: harmless), so a cache never hands a gzip body to a client that did
//   not ask for one, nor the reverse.
import { constants } from "node:zlib";
import compress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Answers shorter than this many bytes are sent as they are: coding them saves less than its headers and CPU cost. */
export const COMPRESSION_THRESHOLD_BYTES = 1024;

/**
 * Brotli's quality (0-11). 4 codes a job list about as small as gzip's default level, at about
 * gzip's CPU cost; 11 would cost tens of times more CPU per answer for a few per cent fewer
 * bytes, which one client asking for a long list could turn against all the others
 * (docs/benchmarks.md, "Compression").
 */
export const BROTLI_QUALITY = 4;

/** The codings offered, in the gateway's order of preference when the client ranks them equally. */
export const CODINGS = ["br", "gzip"] as const;

/** The media types compressed: the JSON answers, problems and NDJSON streams. */
const COMPRESSIBLE = /^application\/(?:json|problem\+json|x-ndjson)\s*(?:;|$)/i;

/** True when an answer of `contentType` is compressed (when long enough and asked for). */
export function isCompressible(contentType: string): boolean {
  return COMPRESSIBLE.test(contentType);
}

/** Registers compression on every route added after it (before the routes). */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(compress, {
    global: true,
    encodings: [...CODINGS],
    threshold: COMPRESSION_THRESHOLD_BYTES,
    customTypes: COMPRESSIBLE,
    // Each write of a stream is flushed (Z_SYNC_FLUSH, brotli's FLUSH); a one-piece answer is
    // coded in one call, where the flag changes nothing.
    zlibOptions: { flush: constants.Z_SYNC_FLUSH },
    brotliOptions: {
      flush: constants.BROTLI_OPERATION_FLUSH,
      params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY },
    },
    // Request bodies are read as sent: a coded request body is a 415 from the body parsers.
    globalDecompression: false,
  });
  app.addHook("onSend", varyOnCoding);
}

/** Adds Accept-Encoding to Vary for an answer of a compressible type, compressed or not. */
function varyOnCoding(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  const type = reply.getHeader("content-type");
  if (typeof type === "string" && isCompressible(type)) {
    const vary = reply.getHeader("vary");
    const present = (Array.isArray(vary) ? vary.join(",") : String(vary ?? "")).toLowerCase();
    if (!present.split(",").some((name) => name.trim() === "accept-encoding" || name.trim() === "*")) {
      void reply.header("vary", present === "" ? "accept-encoding" : `${present}, accept-encoding`);
    }
  }
  done(null, payload);
}
