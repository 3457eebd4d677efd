// client.probes: the gateway's own health, for whoever watches it (a load balancer's view).
import type { RequestOptions } from "../core/options.js";
import type { Transport } from "../core/transport.js";
import type { ProbeStatus } from "../types.js";

export class Probes {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** 200 while the gateway's process serves. */
  async liveness(options: RequestOptions = {}): Promise<ProbeStatus> {
    return (await this.#transport.json({ operation: "getLiveness" }, options)).value as ProbeStatus;
  }

  /** The Manager answers its health check; an UnavailableError when not. */
  async readiness(options: RequestOptions = {}): Promise<ProbeStatus> {
    return (await this.#transport.json({ operation: "getReadiness" }, options)).value as ProbeStatus;
  }
}
