// The gateway as main.ts starts it (startGateway, from flags), in front of a reference Manager
// of the test's own, with its log captured line by line as the JSON pino writes.
import { loadConfig } from "../../src/config.js";
import { startGateway } from "../../src/gateway.js";
import type { Gateway } from "../../src/gateway.js";

export type LogLine = Record<string, unknown>;

export interface LoggedGateway {
  readonly gateway: Gateway;
  readonly url: string;
  /** Every line logged so far, parsed. */
  readonly lines: LogLine[];
  /** The access lines (msg "request") so far. */
  access(): LogLine[];
  close(): Promise<void>;
}

export async function startLoggedGateway(argv: readonly string[], level = "info"): Promise<LoggedGateway> {
  // Load shedding off: in this process the event loop is the test runner's as well, and a
  // test's own synchronous work (a large body parsed) would count as the gateway's lag. The
  // shedding tests (test/server/load-shedding.test.ts, test/e2e/overload.test.ts) turn it on.
  const loaded = loadConfig(["--port", "0", "--shed-event-loop-delay", "0", ...argv], {});
  if (loaded.help) throw new Error("help");
  const lines: LogLine[] = [];
  const stream = { write: (line: string) => { lines.push(JSON.parse(line) as LogLine); } };
  const gateway = await startGateway(loaded.config, { level, stream });
  return {
    gateway,
    url: gateway.url,
    lines,
    access: () => lines.filter((line) => line.msg === "request"),
    close: () => gateway.close(),
  };
}
