// Gateway replicas: several gateway apps (test/helpers/gateway.ts, driven with app.inject) in
// front of one real reference Manager, as when a gateway is deployed more than once. A replica
// may hook its Manager client, method by method, to make something happen at an exact point of
// a route's calls (another writer's change just before a write, a failure of one call);
// everything else is the real Manager's answer.
import type { FastifyInstance } from "fastify";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "./gateway.js";
import type { GatewayOptions, GatewayUnderTest } from "./gateway.js";

export interface Replica {
  readonly app: FastifyInstance;
  /** The replica's own connection, unhooked: the test's direct line to the Manager. */
  readonly direct: ManagerConnection["manager"];
}

export type ReplicaOptions = Omit<GatewayOptions, "listen" | "beforeListen">;

export interface Replicas {
  readonly manager: RunningManager;
  /** Adds a replica in front of the Manager; closed by close(). */
  add(options?: ReplicaOptions): Promise<Replica>;
  close(): Promise<void>;
}

export async function startReplicas(): Promise<Replicas> {
  const manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  const opened: GatewayUnderTest[] = [];
  return {
    manager,
    add: async (options = {}) => {
      const gateway = await gatewayTo(manager.address, options);
      opened.push(gateway);
      return { app: gateway.app, direct: gateway.connection.manager };
    },
    close: async () => {
      for (const gateway of opened) await gateway.close();
      await manager.close();
    },
  };
}
