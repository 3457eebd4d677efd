// A gateway app (not listening; driven with app.inject) in front of a real reference Manager
// on port 0, plus a direct gRPC client to that Manager for checking what it stored.
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import type { AppOptions } from "../../src/app.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";

export interface TestGateway {
  readonly app: FastifyInstance;
  readonly manager: RunningManager;
  readonly connection: ManagerConnection;
  /** Every job the Manager holds, in id order, straight from JobSearch. */
  jobs(): Promise<Job[]>;
  close(): Promise<void>;
}

/** `options` go to buildApp; requestTimeoutMs defaults to 5 s here. */
export async function startTestGateway(options: Omit<AppOptions, "connection"> = {}): Promise<TestGateway> {
  const manager = await startManager({ port: 0, dataDir: ":memory:" });
  const requestTimeoutMs = options.requestTimeoutMs ?? 5_000;
  const connection = connectManager(manager.address, { defaultTimeoutMs: requestTimeoutMs });
  const app = await buildApp({ ...options, requestTimeoutMs, connection });
  return {
    app,
    manager,
    connection,
    jobs: async () => {
      const jobs: Job[] = [];
      for await (const current of connection.manager.jobSearch({})) if (current.job) jobs.push(current.job);
      return jobs;
    },
    close: async () => {
      await app.close();
      connection.close();
      await manager.close();
    },
  };
}

export const JSON_HEADERS = { "content-type": "application/json" } as const;
