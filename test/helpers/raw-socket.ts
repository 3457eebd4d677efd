// A raw TCP connection to a listening gateway, for what an HTTP client library will not do:
// send half a request, stop reading, or hold a connection without a word.
import { connect } from "node:net";
import type { Socket } from "node:net";

export interface RawConnection {
  readonly socket: Socket;
  /** Everything received so far, as latin1 text. */
  received(): string;
  /** True until the server has closed the connection (or it failed). */
  isOpen(): boolean;
  /** Resolves with the ms from connecting to the close; rejects if it is still open after `withinMs`. */
  closed(withinMs: number): Promise<number>;
}

/** Connects to `url`'s host and port, and sends `bytes` (if any) once connected. */
export function openRaw(url: string, bytes = ""): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(Number(port), hostname);
    let text = "";
    let closedAt: number | undefined;
    const onClose: (() => void)[] = [];
    socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
    // A reset is a close too; the tests look at what arrived before it.
    socket.on("error", () => undefined);
    socket.once("close", () => {
      closedAt = Date.now() - started;
      for (const listener of onClose) listener();
    });
    socket.once("connect", () => {
      if (bytes !== "") socket.write(bytes, "latin1");
      resolve({
        socket,
        received: () => text,
        isOpen: () => closedAt === undefined,
        closed: (withinMs) =>
          new Promise((done, fail) => {
            if (closedAt !== undefined) {
              done(closedAt);
              return;
            }
            const timer = setTimeout(() => {
              fail(new Error(`the connection is still open after ${withinMs} ms; received ${JSON.stringify(text.slice(0, 200))}`));
            }, withinMs);
            onClose.push(() => {
              clearTimeout(timer);
              done(closedAt ?? 0);
            });
          }),
      });
    });
    socket.once("error", reject);
  });
}

export interface RawResponse {
  /** e.g. "HTTP/1.1 408 Request Timeout" */
  readonly statusLine: string;
  /** Header names in lower case. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Splits one HTTP/1.1 response with a Content-Length body. */
export function parseResponse(text: string): RawResponse {
  const end = text.indexOf("\r\n\r\n");
  if (end < 0) throw new Error(`not an HTTP response: ${JSON.stringify(text.slice(0, 200))}`);
  const [statusLine = "", ...lines] = text.slice(0, end).split("\r\n");
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { statusLine, headers, body: text.slice(end + 4) };
}
