// client.jobs.instances: a job's running instances, one per role.
import type { RequestOptions } from "../core/options.js";
import type { Transport } from "../core/transport.js";
import type { RunningJob, StartInstance } from "../types.js";

export class Instances {
  readonly #transport: Transport;

  constructor(transport: Transport) {
    this.#transport = transport;
  }

  /** The job's running instances (none when it is not running). */
  async list(jobId: string, options: RequestOptions = {}): Promise<RunningJob[]> {
    const { value } = await this.#transport.json({ operation: "listJobInstances", path: { jobId } }, options);
    return (value as { instances: RunningJob[] }).instances;
  }

  /** Runs the job in `role` on node `nodeId`. Never retried: a second start is a second instance. */
  async start(jobId: string, instance: StartInstance, options: RequestOptions = {}): Promise<RunningJob> {
    const { value } = await this.#transport.json({ operation: "startJob", path: { jobId }, body: instance }, options);
    return value as RunningJob;
  }

  async stop(jobId: string, role: string, nodeId: string, options: RequestOptions = {}): Promise<void> {
    await this.#transport.json({ operation: "stopJob", path: { jobId, role }, query: { nodeId } }, options);
  }
}
