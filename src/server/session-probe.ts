// A probe of an HTTP/2 connection's liveness, for the moments the server writes to a client
// that may just have gone. When a client resets its TCP connection while the server is writing
// to it, node's TLS layer fails that write and then holds the next one as in progress for ever
// (a node bug, nodejs/node#55804): the session stops reading, so it never sees the connection close, and
// neither session.close() nor session.destroy() can end it, since both wait for that write.
// The session and its socket would stay until the process ends, and the server's close() would
// wait for them. Only destroying the TLS socket itself frees them, so a probed connection that
// neither answers a PING nor goes away in time is cut there.
import type { Http2SecureServer, Http2Session, ServerHttp2Session } from "node:http2";
import type { TLSSocket } from "node:tls";

export interface SessionProbe {
  /**
   * Pings `session`, unless it is gone or a probe of it is under way. If no PING ACK comes and
   * the session is not gone within the probe's time, its TLS socket is destroyed. A session
   * that is closing (GOAWAY sent) cannot be pinged: it must be gone within that time instead.
   */
  probe(session: Http2Session): void;
}

/** Probes of the HTTP/2 sessions of `server`, each given `timeoutMs`; call before `server` listens. */
export function sessionProbe(server: Http2SecureServer, timeoutMs: number): SessionProbe {
  // A session does not give its socket (session.socket is a proxy that refuses destroy()): each
  // is found again by its peer's address and port, read while its connection is new (a socket
  // reset by its peer no longer knows them).
  const peers = new WeakMap<Http2Session, string>();
  const sockets = new Map<string, TLSSocket>();
  server.on("session", (session: ServerHttp2Session) => {
    const peer = peerOf(session.socket);
    if (peer !== undefined) peers.set(session, peer);
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    const peer = peerOf(socket);
    if (peer === undefined) return;
    sockets.set(peer, socket);
    socket.once("close", () => {
      if (sockets.get(peer) === socket) sockets.delete(peer);
    });
  });
  const probing = new WeakSet<Http2Session>();
  return {
    probe: (session) => {
      if (session.destroyed || probing.has(session)) return;
      probing.add(session);
      const done = (): void => {
        clearTimeout(deadline);
        session.off("close", done);
        probing.delete(session);
      };
      const deadline = setTimeout(() => {
        done();
        const peer = peers.get(session);
        const socket = peer === undefined ? undefined : sockets.get(peer);
        if (!session.destroyed && socket !== undefined) socket.destroy();
      }, timeoutMs);
      deadline.unref();
      session.once("close", done);
      // An error is a PING cancelled, by a session closing or gone: the deadline or 'close' decides.
      session.ping((error) => {
        if (error === null) done();
      });
    },
  };
}

/** The peer's address and port, which tell one open connection of a listener from another; undefined once its socket no longer knows them. */
function peerOf(socket: { readonly remoteAddress?: string | undefined; readonly remotePort?: number | undefined }): string | undefined {
  if (socket.remoteAddress === undefined || socket.remotePort === undefined) return undefined;
  return `${socket.remoteAddress}|${String(socket.remotePort)}`;
}
