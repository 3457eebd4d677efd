// The gateway as main.ts starts it (test/helpers/gateway.ts, startMainGateway), with its
// access lines picked out of the captured log.
import { startMainGateway } from "../helpers/gateway.js";
import type { LogLine, MainGateway } from "../helpers/gateway.js";

export type { LogLine };

export interface LoggedGateway extends MainGateway {
  /** The access lines (msg "request") so far. */
  access(): LogLine[];
}

/** startMainGateway at its default level (info), with `access`. */
export async function startLoggedGateway(argv: readonly string[]): Promise<LoggedGateway> {
  const started = await startMainGateway(argv);
  return { ...started, access: () => started.lines.filter((line) => line.msg === "request") };
}
