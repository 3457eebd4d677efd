// Shutdown with a deadline (src/server/shutdown.ts), on the built command: whatever a client
// does (half its headers, half its body, reading its answer slowly), SIGTERM ends the process
// once --shutdown-timeout has passed; and a request in flight is answered, after which its
// connection is closed rather than kept alive.
import type { ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { openRaw, parseResponse } from "../helpers/raw-socket.js";
import type { RawConnection } from "../helpers/raw-socket.js";

const DEADLINE_MS = 1_000;
/** Bound on the exit after SIGTERM: the deadline, the embedded Manager's close, and a loaded machine. */
const EXIT_WITHIN_MS = DEADLINE_MS + 7_000;
/** Long request timeouts, so that only the shutdown deadline can end the connections. */
const PATIENT = ["--header-timeout", "60000", "--body-timeout", "60000"];
const DEADLINE_LINE = "shutdown deadline passed; closing the connections still open";

interface Exit {
  readonly code: number | null;
  /** ms from the signal. */
  readonly afterMs: number;
}

/** Sends SIGTERM and resolves when the process exits; rejects if it has not after `withinMs`. */
function terminate(child: ChildProcess, withinMs: number): Promise<Exit> {
  const sent = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new Error(`still running ${withinMs} ms after SIGTERM`));
    }, withinMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, afterMs: Date.now() - sent });
    });
    child.kill("SIGTERM");
  });
}

async function withCommand(args: string[], test: (gateway: StartedCommand) => Promise<void>): Promise<void> {
  const gateway = await startCommand(args);
  try {
    await test(gateway);
  } finally {
    gateway.child.kill("SIGKILL");
    await gateway.stop();
  }
}

/** A moment for the gateway to read what was just sent. */
function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 200));
}

describe("SIGTERM with --shutdown-timeout", () => {
  it.each([
    ["half-sent headers", "GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: appl"],
    ["a body shorter than its Content-Length", 'POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jobId":'],
  ])("exits 0 once the deadline has passed, for a client with %s", async (_name, bytes) => {
    await withCommand(["--shutdown-timeout", String(DEADLINE_MS), ...PATIENT], async (gateway) => {
      const connection = await openRaw(gateway.url, bytes);
      await settle();
      const exit = await terminate(gateway.child, EXIT_WITHIN_MS);
      expect(exit.code).toBe(0);
      expect(gateway.lines.some((line) => line.includes(DEADLINE_LINE))).toBe(true);
      expect(connection.isOpen()).toBe(false);
    });
  }, 30_000);

  it("exits 0 once the deadline has passed, for a client reading a large answer slowly", async () => {
    await withCommand(["--shutdown-timeout", String(DEADLINE_MS), ...PATIENT], async (gateway) => {
      // 16 jobs of 900 KB: far more than the socket buffers hold for a client that stops reading.
      for (let i = 0; i < 16; i++) {
        const created = await fetch(`${gateway.url}/v1/jobs`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ jobId: `big-${i}`, startDateTime: "2026-01-01T00:00:00Z", description: "x".repeat(900_000) }),
        });
        expect(created.status).toBe(201);
      }
      const reader = await openRaw(gateway.url, "GET /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      await untilReceived(reader);
      reader.socket.pause();
      await settle();
      const exit = await terminate(gateway.child, EXIT_WITHIN_MS);
      expect(exit.code).toBe(0);
      expect(gateway.lines.some((line) => line.includes(DEADLINE_LINE))).toBe(true);
    });
  }, 60_000);

  it("answers a request in flight at SIGTERM, then closes its connection and exits without waiting for the deadline", async () => {
    await withCommand(["--shutdown-timeout", "30000", ...PATIENT], async (gateway) => {
      const body = JSON.stringify({ jobId: "in-flight", startDateTime: "2026-01-01T00:00:00Z" });
      const head = `POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
      const connection = await openRaw(gateway.url, head + body.slice(0, 10));
      await settle();
      const exited = terminate(gateway.child, 8_000);
      await settle();
      connection.socket.write(body.slice(10));
      const [, exit] = await Promise.all([connection.closed(8_000), exited]);
      expect(parseResponse(connection.received()).statusLine).toBe("HTTP/1.1 201 Created");
      expect(exit.code).toBe(0);
      expect(gateway.lines.some((line) => line.includes(DEADLINE_LINE))).toBe(false);
    });
  }, 30_000);
});

function untilReceived(connection: RawConnection): Promise<void> {
  return new Promise((resolve) => {
    connection.socket.once("data", () => {
      resolve();
    });
  });
}
