// Shutdown with a deadline. Closing the server stops it accepting and lets the requests in
// flight finish; but a client that never finishes sending its request, or reads its answer
// slowly, would hold the process for ever, since Node stops enforcing the header and body
// timeouts once the server closes. So when the deadline passes, every connection still open is
// closed. Until then, a connection whose answer is complete is closed at once rather than kept
// alive, or each would wait out the idle timeout first.
import type { Http2Session } from "node:http2";
import type { TLSSocket } from "node:tls";
import type { FastifyInstance } from "fastify";

export interface GracefulClose {
  /**
   * Closes the app (its preClose hooks end the event streams), waiting at most `timeoutMs` for
   * the requests in flight before closing their connections. Resolves once the app is closed.
   */
  close(timeoutMs: number): Promise<void>;
}

/** Call before `app` listens: it follows every response from then on. */
export function gracefulClose(app: FastifyInstance): GracefulClose {
  let closing = false;
  const server = app.server;
  server.on("request", (request, response) => {
    // HTTP/2 streams share their connection: the session is closed instead (below).
    if (request.httpVersionMajor !== 1) return;
    // Ending the socket after the last byte of the answer, which is then no longer kept alive.
    response.once("finish", () => {
      if (closing) request.socket.end();
    });
  });
  const connections = secureConnections(server);
  return {
    close: async (timeoutMs) => {
      closing = true;
      // GOAWAY: no new stream on any HTTP/2 connection; the open ones may finish.
      for (const session of connections.sessions) session.close();
      const deadline = setTimeout(() => {
        app.log.warn({ shutdownTimeoutMs: timeoutMs }, "shutdown deadline passed; closing the connections still open");
        // node:http's server knows its connections; an HTTPS server that speaks HTTP/2 does not.
        if (typeof server.closeAllConnections === "function") server.closeAllConnections();
        for (const socket of connections.sockets) socket.destroy();
      }, timeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}

interface SecureConnections {
  readonly sessions: ReadonlySet<Http2Session>;
  readonly sockets: ReadonlySet<TLSSocket>;
}

/** The HTTP/2 sessions and TLS connections open on `server` (none on a plain HTTP server). */
function secureConnections(server: FastifyInstance["server"]): SecureConnections {
  const sessions = new Set<Http2Session>();
  const sockets = new Set<TLSSocket>();
  server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  return { sessions, sockets };
}
