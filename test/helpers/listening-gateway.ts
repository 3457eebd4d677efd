// The gateway app listening on 127.0.0.1:0 in this process, in front of a reference Manager
// also in this process, so that a test can use real HTTP clients (EventSource, a browser) and
// still read the Manager's own counters (stats().openEventStreams).
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import type { AppOptions } from "../../src/app.js";
import { connectManager } from "../../src/grpc/manager-connection.js";
import type { ManagerConnection } from "../../src/grpc/manager-connection.js";
import { startManager } from "../../src/manager/index.js";
import type { RunningManager } from "../../src/manager/index.js";

export interface ListeningGateway {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly manager: RunningManager;
  readonly connection: ManagerConnection;
  close(): Promise<void>;
}

export interface ListeningOptions extends Omit<AppOptions, "connection"> {
  /** Called before the app listens: a test may add routes (a page for the browser). */
  readonly beforeListen?: (app: FastifyInstance) => void;
}

export async function startListeningGateway(options: ListeningOptions = {}): Promise<ListeningGateway> {
  const manager = await startManager({ port: 0, dataDir: ":memory:" });
  const { beforeListen, ...appOptions } = options;
  const connection = connectManager(manager.address, appOptions.requestTimeoutMs ?? 5_000);
  const app = await buildApp({ requestTimeoutMs: 5_000, ...appOptions, connection });
  beforeListen?.(app);
  const url = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url,
    app,
    manager,
    connection,
    close: async () => {
      await app.close();
      connection.close();
      await manager.close();
    },
  };
}

/** Polls `condition` every 10 ms until it holds, for at most `ms`; throws with `what` otherwise. */
export async function eventually(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
