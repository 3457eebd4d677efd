// The gateway app listening on 127.0.0.1:0 in this process, in front of a reference Manager
// also in this process, so that a test can use real HTTP clients (EventSource, a browser) and
// still read the Manager's own counters (stats().openEventStreams).
import type { FastifyInstance } from "fastify";
import type { AppOptions } from "../../src/app.js";
import { startTestGateway } from "./gateway.js";
import type { TestGateway } from "./gateway.js";

export interface ListeningGateway extends TestGateway {
  readonly url: string;
}

export interface ListeningOptions extends Omit<AppOptions, "connection"> {
  /** Called before the app listens: a test may add routes (a page for the browser). */
  readonly beforeListen?: (app: FastifyInstance) => void;
}

export async function startListeningGateway(options: ListeningOptions = {}): Promise<ListeningGateway> {
  const { beforeListen, ...appOptions } = options;
  const gateway = await startTestGateway(appOptions);
  beforeListen?.(gateway.app);
  const url = await gateway.app.listen({ port: 0, host: "127.0.0.1" });
  return { ...gateway, url };
}

/** Polls `condition` every 10 ms until it holds, for at most `ms`; throws with `what` otherwise. */
export async function eventually(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
