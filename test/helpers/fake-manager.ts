// A stand-in Manager on port 0 that records every call it receives (method, request, metadata,
// deadline) and answers as `behaviour` says: by default every unary call succeeds with an
// empty answer and each stream sends one message and ends. Tests override single methods to
// hang, fail, or stream what they need; the gateway in front of it is a real app.
import { Server } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import type { FastifyInstance } from "fastify";
import { EventStreamEventSchema, Manager, NorskStatusEventSchema } from "../../src/gen/norsk/api/manager_pb.js";
import { addService, listenInsecure } from "../../src/grpc/index.js";
import type { HandlerContext, ServiceImpl } from "../../src/grpc/index.js";
import { buildApp } from "../../src/app.js";
import type { AppOptions } from "../../src/app.js";
import { connectManager } from "../../src/grpc/manager-connection.js";
import type { ManagerConnection } from "../../src/grpc/manager-connection.js";

type Impl = ServiceImpl<typeof Manager>;
type Behaviour = { -readonly [K in keyof Impl]?: Impl[K] };

export interface RecordedCall {
  /** The RPC's name as in the proto: CreateJob, EventStream, ... */
  readonly method: string;
  readonly request: unknown;
  readonly metadata: ReadonlyMap<string, string>;
  /** ms since the epoch, or undefined when the call had none. */
  readonly deadline: number | undefined;
  readonly at: number;
}

export interface FakeManager {
  readonly address: string;
  readonly calls: RecordedCall[];
  /** Replace methods' behaviour (cleared by reset()). */
  readonly behaviour: Behaviour;
  reset(): void;
  close(): void;
}

// The streams have nothing to wait for: one message and done.
/* eslint-disable @typescript-eslint/require-await */
const DEFAULTS: Impl = {
  createStatusChannel: async function* () {
    yield create(NorskStatusEventSchema, { message: { case: "hello", value: { version: { majorVersion: 1, label: "fake" } } } });
  },
  createJob: () => ({ hash: 1n }),
  updateJob: () => ({ hash: 1n }),
  deleteJob: () => ({}),
  jobSearch: async function* () {
    // Nothing found, by default.
  },
  createAwsNode: () => ({}),
  createOciNode: () => ({}),
  updatePhysicalNode: () => ({}),
  terminateNode: () => ({}),
  startJob: () => ({}),
  stopJob: () => ({}),
  completeJob: () => ({}),
  eventStream: async function* () {
    yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });
  },
};
/* eslint-enable @typescript-eslint/require-await */

export async function startFakeManager(): Promise<FakeManager> {
  const calls: RecordedCall[] = [];
  const behaviour: Behaviour = {};
  const impl: Record<string, unknown> = {};
  for (const method of Manager.methods) {
    const name = method.localName as keyof Impl;
    impl[name] = (request: unknown, context: HandlerContext) => {
      calls.push({ method: method.name, request, metadata: context.metadata, deadline: context.deadline, at: Date.now() });
      const handler = (behaviour[name] ?? DEFAULTS[name]) as (request: unknown, context: HandlerContext) => unknown;
      return handler(request, context);
    };
  }
  const server = new Server();
  addService(server, Manager, impl as Impl);
  const port = await listenInsecure(server, "127.0.0.1:0");
  return {
    address: `127.0.0.1:${port}`,
    calls,
    behaviour,
    reset: () => {
      calls.length = 0;
      for (const key of Object.keys(behaviour)) Reflect.deleteProperty(behaviour, key);
    },
    close: () => {
      server.forceShutdown();
    },
  };
}

/** Resolves when `signal` aborts (the gateway cancelled the call), for handlers that hang. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => { resolve(); }, { once: true });
  });
}

export interface FakeGateway {
  readonly app: FastifyInstance;
  readonly manager: FakeManager;
  readonly connection: ManagerConnection;
  close(): Promise<void>;
}

/** A gateway app (driven with inject, or listening if the test says so) in front of a fake Manager. */
export async function startFakeGateway(options: Omit<AppOptions, "connection"> = {}): Promise<FakeGateway> {
  const manager = await startFakeManager();
  const connection = connectManager(manager.address, options.requestTimeoutMs ?? 2_000);
  const app = await buildApp({ requestTimeoutMs: 2_000, ...options, connection });
  return {
    app,
    manager,
    connection,
    close: async () => {
      await app.close();
      connection.close();
      manager.close();
    },
  };
}
