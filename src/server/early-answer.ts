// An HTTP/2 stream answered before its request body ended (a 408 at the body deadline, a 413
// for a declared length past the limit, a 415, a 401 ...) is reset with NO_ERROR once its
// answer has gone out whole, as RFC 9113 allows ("Stream States", half-closed (local)): the
// client learns to stop sending, and nothing of the stream (its slot among the connection's
// concurrent streams, its buffers) stays for as long as the client cares to keep it open.
//
// node does this itself for some early answers and not for others (a body the reader is still
// waiting on, as at the body deadline), so every stream is looked at the same way here. Each
// such reset is a write to a client that may be going away at that very moment, which node's
// TLS layer does not always survive: the connection is probed once the stream has closed
// (src/server/session-probe.ts).
import { constants as http2 } from "node:http2";
import type { Http2SecureServer, Http2ServerRequest, ServerHttp2Stream } from "node:http2";
import { sessionProbe } from "./session-probe.js";

/** How often a stream whose answer has ended is looked at until its END_STREAM has been sent. */
const POLL_MS = 5;

export interface EarlyAnswerOptions {
  /**
   * ms an answer that has ended may take to go out (a client that does not read holds it in
   * flow control); past it the stream is cancelled instead. The same bound is given to the
   * connection, once the stream has closed, to answer a PING or be gone. The body deadline is
   * the natural bound: a stream is held no longer than a slow body would be.
   */
  readonly maxDrainMs: number;
}

/** Resets each HTTP/2 stream of `server` whose answer went out before its request body ended; call before `server` listens. */
export function resetEarlyAnswers(server: Http2SecureServer, options: EarlyAnswerOptions): void {
  const probe = sessionProbe(server, options.maxDrainMs);
  server.on("request", (request: Http2ServerRequest) => {
    if (request.httpVersionMajor !== 2 || request.complete) return;
    const stream = request.stream;
    // Read now: a stream gives its session up once destroyed.
    const session = stream.session;
    let early = false;
    // 'finish' is the stream's writable side ending: the answer is with nghttp2, not yet sent.
    stream.once("finish", () => {
      if (request.complete) return;
      early = true;
      resetOnceSent(stream, Date.now() + options.maxDrainMs);
    });
    // Reset by this module or by node, or ended by the client after all.
    stream.once("close", () => {
      if (early && session !== undefined) probe.probe(session);
    });
  });
}

/**
 * Resets `stream` with NO_ERROR once nghttp2 has sent its END_STREAM (a reset queued before
 * would be sent first, as nghttp2 sends control frames ahead of DATA, and cut the answer), or
 * with CANCEL at `deadline`.
 */
function resetOnceSent(stream: ServerHttp2Stream, deadline: number): void {
  if (stream.closed || stream.destroyed) return;
  const { localClose, remoteClose } = stream.state;
  // A body that did end (unread, or read after the answer), or a stream nghttp2 no longer
  // holds, leaves nothing to stop.
  if (remoteClose === 1 || localClose === undefined) return;
  if (localClose === 1) {
    stream.close(http2.NGHTTP2_NO_ERROR);
    return;
  }
  if (Date.now() >= deadline) {
    stream.close(http2.NGHTTP2_CANCEL);
    return;
  }
  setTimeout(() => {
    resetOnceSent(stream, deadline);
  }, POLL_MS).unref();
}
