// The gateway listening on 127.0.0.1:0 in this process, in front of a reference Manager also in
// this process (test/helpers/gateway.ts with `listen`), so that a test can use real HTTP clients
// (EventSource, a browser) and still read the Manager's own counters (stats().openEventStreams).
import { startTestGateway } from "./gateway.js";
import type { GatewayOptions, TestGateway } from "./gateway.js";

export type ListeningGateway = TestGateway;

export type ListeningOptions = Omit<GatewayOptions, "listen">;

export async function startListeningGateway(options: ListeningOptions = {}): Promise<ListeningGateway> {
  return startTestGateway({ ...options, listen: true });
}

/** Polls `condition` every 10 ms until it holds, for at most `ms`; throws with `what` otherwise. */
export async function eventually(condition: () => boolean, what: string, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
