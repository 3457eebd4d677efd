// Gateway replicas: several gateway apps (driven with app.inject) in front of one real
// reference Manager, as when a gateway is deployed more than once. A replica may hook its
// Manager client, method by method, to make something happen at an exact point of a route's
// calls (another writer's change just before a write, a failure of one call); everything
// else is the real Manager's answer.
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../src/app.js";
import type { AppOptions } from "../../src/app.js";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import type { ManagerClient } from "../../src/operations/job-access.js";

export interface Replica {
  readonly app: FastifyInstance;
  /** The replica's own connection, unhooked: the test's direct line to the Manager. */
  readonly direct: ManagerConnection["manager"];
}

export interface ReplicaOptions extends Omit<AppOptions, "connection"> {
  /** Methods that replace the real client's in this replica; each may call `real`. Default: none. */
  readonly hook?: (real: ManagerClient) => Partial<ManagerClient>;
}

export interface Replicas {
  readonly manager: RunningManager;
  /** Adds a replica in front of the Manager; closed by close(). */
  add(options?: ReplicaOptions): Promise<Replica>;
  close(): Promise<void>;
}

export async function startReplicas(): Promise<Replicas> {
  const manager = await startManager({ port: 0, dataDir: ":memory:" });
  const opened: { app: FastifyInstance; connection: ManagerConnection }[] = [];
  return {
    manager,
    add: async ({ hook, ...options } = {}) => {
      const connection = connectManager(manager.address, { defaultTimeoutMs: options.requestTimeoutMs ?? 5_000 });
      const hooked: ManagerConnection = hook === undefined ? connection : { ...connection, manager: { ...connection.manager, ...hook(connection.manager) } };
      const app = await buildApp({ requestTimeoutMs: 5_000, ...options, connection: hooked });
      opened.push({ app, connection });
      return { app, direct: connection.manager };
    },
    close: async () => {
      for (const { app, connection } of opened) {
        await app.close();
        connection.close();
      }
      await manager.close();
    },
  };
}
