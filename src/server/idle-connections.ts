// When the app closes, the HTTP/1.1 connections that carry nothing are closed at once: one kept
// alive between requests, and one a client opened and never used (the spare connection a
// fetch implementation keeps ready). node's closeIdleConnections, which fastify calls on close,
// misses the second (it knows only connections that have begun a request), and an HTTPS server
// that also speaks HTTP/2 has none at all; either would hold the close until its idle timeout
// or the shutdown deadline. A connection in the middle of a request or its answer, or one whose
// client has sent anything since its last answer, is left to finish. HTTP/2 connections are
// closed by their sessions (GOAWAY, src/server/shutdown.ts).
import type { Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import type { FastifyInstance } from "fastify";

/** What is known of one HTTP/1.1 connection. */
interface Use {
  /** Requests read and not yet answered (more than one when pipelined). */
  inFlight: number;
  /** socket.bytesRead when its last answer ended: anything read since is a request begun. */
  readWhenIdle: number;
}

/** Call before `app` listens: it follows every connection from then on. */
export function closeIdleConnectionsOnClose(app: FastifyInstance): void {
  const server = app.server;
  const uses = new Map<Socket, Use>();
  const follow = (socket: Socket): void => {
    uses.set(socket, { inFlight: 0, readWhenIdle: 0 });
    socket.once("close", () => uses.delete(socket));
  };
  // A TLS server's 'connection' is the TCP socket under the TLS one that requests come on.
  if ("setSecureContext" in server) {
    server.on("secureConnection", (socket: TLSSocket) => {
      if (socket.alpnProtocol !== "h2") follow(socket);
    });
  } else server.on("connection", follow);
  server.on("request", (request, response) => {
    const use = uses.get(request.socket);
    if (use === undefined) return;
    use.inFlight++;
    response.once("close", () => {
      use.inFlight--;
      if (use.inFlight === 0) use.readWhenIdle = request.socket.bytesRead;
    });
  });
  // preClose: fastify's onClose hooks run once its server has closed, which would wait on these.
  app.addHook("preClose", (done) => {
    for (const [socket, use] of uses) if (use.inFlight === 0 && socket.bytesRead === use.readWhenIdle) socket.destroy();
    done();
  });
}
