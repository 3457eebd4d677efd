// Request targets node hands over as they are: CONNECT (answered with a problem instead of a
// silent close; src/http/unrouted.ts connectHandler) and the absolute form
// (`GET http://name/path HTTP/1.1`), whose authority is checked as Host is (src/server/cross-site.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRaw } from "../helpers/raw-socket.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";

let gw: ListeningGateway;

beforeAll(async () => {
  gw = await startListeningGateway();
});

afterAll(async () => {
  await gw.close();
});

/** Sends `head` on a new connection; the status line and the body of the answer, once it is closed. */
async function exchange(head: string): Promise<{ statusLine: string; body: string }> {
  const connection = await openRaw(gw.url, head);
  await connection.closed(10_000).catch(() => undefined);
  const text = connection.received();
  connection.socket.destroy();
  const [headers = "", body = ""] = text.split("\r\n\r\n");
  return { statusLine: headers.split("\r\n")[0] ?? "", body };
}

describe("CONNECT", () => {
  it("is answered 405 with a problem saying no tunnel is opened, then the connection is closed", async () => {
    const { statusLine, body } = await exchange("CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n");
    expect(statusLine).toBe("HTTP/1.1 405 Method Not Allowed");
    expect(JSON.parse(body)).toMatchObject({ status: 405, detail: "CONNECT is not served: this gateway opens no tunnels" });
  });
});

describe("an absolute-form request target", () => {
  it("is refused with 421 when its authority is not a name of the gateway, whatever Host says", async () => {
    const { statusLine, body } = await exchange("GET http://evil.example/v1/jobs HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(statusLine).toBe("HTTP/1.1 421 Misdirected Request");
    expect(JSON.parse(body)).toMatchObject({ status: 421, errors: [{ header: "host", message: '"evil.example" is not a name of this gateway (--allowed-host)' }] });
  });

  it("is served when its authority is one of the gateway's names, even with a foreign Host", async () => {
    const { statusLine } = await exchange("GET http://localhost/healthz HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n");
    expect(statusLine).toBe("HTTP/1.1 200 OK");
  });
});
