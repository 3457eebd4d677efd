// Shutdown with a deadline. Closing the server stops it accepting and lets the requests in
// flight finish; but a client that never finishes sending its request, or reads its answer
// slowly, would hold the process for ever, since Node stops enforcing the header and body
// timeouts once the server closes. So when the deadline passes, every connection still open is
// closed. Until then, a connection whose answer is complete is closed at once rather than kept
// alive, or each would wait out the idle timeout first.
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
  app.server.on("request", (request, response) => {
    // Ending the socket after the last byte of the answer, which is then no longer kept alive.
    response.once("finish", () => {
      if (closing) request.socket.end();
    });
  });
  return {
    close: async (timeoutMs) => {
      closing = true;
      const deadline = setTimeout(() => {
        app.log.warn({ shutdownTimeoutMs: timeoutMs }, "shutdown deadline passed; closing the connections still open");
        app.server.closeAllConnections();
      }, timeoutMs);
      try {
        await app.close();
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}
