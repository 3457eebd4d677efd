// The gateway's one long-lived channel to the Manager, with typed clients for the Manager
// service and for grpc.health.v1 on it.
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import { Manager } from "../gen/norsk/api/manager_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { createChannel, createClient } from "./client.js";
import type { Client } from "./types.js";

export interface ManagerConnection {
  readonly address: string;
  readonly manager: Client<typeof Manager>;
  readonly health: Client<typeof Health>;
  readonly channel: GrpcChannel;
  close(): void;
}

export function connectManager(address: string, defaultTimeoutMs: number): ManagerConnection {
  const channel = createChannel(address, {
    options: {
      // Keep the connection warm and notice a dead Manager between requests.
      "grpc.keepalive_time_ms": 30_000,
      "grpc.keepalive_timeout_ms": 10_000,
      "grpc.keepalive_permit_without_calls": 1,
    },
  });
  return {
    address,
    manager: createClient(Manager, channel, { defaultTimeoutMs }),
    health: createClient(Health, channel, { defaultTimeoutMs }),
    channel,
    close: () => {
      channel.close();
    },
  };
}
