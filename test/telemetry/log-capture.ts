// The gateway as main.ts starts it (test/helpers/gateway.ts, startMainGateway), with its
// access lines picked out of the captured log.
import { afterAll, afterEach, beforeAll } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
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

export interface LoggedGatewaysPerTest {
  /**
   * Starts this test's gateway with `argv` after `--manager`, in front of the shared in-memory
   * Manager unless `manager` names another; it is closed after the test.
   */
  start(argv?: readonly string[], options?: { readonly manager?: string }): Promise<LoggedGateway>;
}

/**
 * For the file or describe block that calls it: one in-memory reference Manager for all its tests,
 * and a gateway per test (startLoggedGateway), closed after the test whatever its outcome.
 */
export function loggedGatewaysPerTest(): LoggedGatewaysPerTest {
  let manager: RunningManager | undefined;
  let logged: LoggedGateway | undefined;
  beforeAll(async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  });
  afterAll(async () => {
    await manager?.close();
  });
  afterEach(async () => {
    await logged?.close();
    logged = undefined;
  });
  return {
    async start(argv = [], options = {}) {
      const address = options.manager ?? manager?.address;
      if (address === undefined) throw new Error("loggedGatewaysPerTest: start() before the Manager started");
      logged = await startLoggedGateway(["--manager", address, ...argv]);
      return logged;
    },
  };
}
