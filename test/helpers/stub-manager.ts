// A stand-in Manager for tests: a real grpc-js server on 127.0.0.1, port 0, serving the Manager
// service from the handlers a test names. Every other RPC answers UNIMPLEMENTED ("The server
// does not implement the method /norsk.api.manager.Manager/…"), as a gRPC server answers a
// method it lacks, so a test that forgets an RPC it relies on fails loudly instead of getting
// a made-up reply, and a new RPC in proto/ changes neither this file nor the tests that do not
// call it. Every call is recorded (method, request, metadata, deadline, arrival), the
// unimplemented ones too.
import { Server } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { EventStreamEventSchema, Manager, NorskStatusEventSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { EventStreamEvent, NorskStatusEvent } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { addPartialService, listen } from "norsk-manager-contract/grpc/index.js";
import type { ServiceImpl } from "norsk-manager-contract/grpc/index.js";
import { gatewayTo } from "./gateway.js";
import type { GatewayOptions, GatewayUnderTest } from "./gateway.js";

type Impl = ServiceImpl<typeof Manager>;

/**
 * Handlers for some of the Manager's RPCs, by local name (createJob, eventStream, ...), typed
 * from the generated service: a misspelt name or a wrong reply type does not compile.
 */
export type ManagerStub = { -readonly [K in keyof Impl]?: Impl[K] };

export interface RecordedCall {
  /** The RPC's name as in the proto: CreateJob, EventStream, ... */
  readonly method: string;
  readonly request: unknown;
  readonly metadata: ReadonlyMap<string, string>;
  /** ms since the epoch, or undefined when the call had none. */
  readonly deadline: number | undefined;
  /** When the call arrived, ms since the epoch. */
  readonly at: number;
}

export interface StubManager {
  /** "127.0.0.1:<port>". */
  readonly address: string;
  /** Every call received, in order of arrival; reset() empties it. */
  readonly calls: RecordedCall[];
  /**
   * The handlers being served, read at each call: starts as the handlers given to
   * stubManager; a test may set, replace or delete one; reset() restores the given ones.
   */
  readonly behaviour: ManagerStub;
  reset(): void;
  close(): void;
}

/** Starts a Manager serving `handlers`; every RPC they do not name answers UNIMPLEMENTED. */
export async function stubManager(handlers: ManagerStub = {}): Promise<StubManager> {
  const calls: RecordedCall[] = [];
  const behaviour: ManagerStub = { ...handlers };
  const server = new Server();
  addPartialService(server, Manager, behaviour, {
    onCall: (method, request, context) => {
      calls.push({ method: method.name, request, metadata: context.metadata, deadline: context.deadline, at: Date.now() });
    },
  });
  const port = await listen(server, "127.0.0.1:0");
  return {
    address: `127.0.0.1:${port}`,
    calls,
    behaviour,
    reset: () => {
      calls.length = 0;
      for (const key of Object.keys(behaviour)) Reflect.deleteProperty(behaviour, key);
      Object.assign(behaviour, handlers);
    },
    close: () => {
      server.forceShutdown();
    },
  };
}

// The two stream handlers a gateway needs to answer 200 on /v1/status and /v1/events. Neither
// has anything to wait for: one message and done.
/* eslint-disable @typescript-eslint/require-await */
/** A createStatusChannel that says hello and ends. */
export async function* statusHello(): AsyncIterable<NorskStatusEvent> {
  yield create(NorskStatusEventSchema, { message: { case: "hello", value: { version: { majorVersion: 1, label: "stub" } } } });
}

/** An eventStream that sends an empty picture (initialDataComplete alone) and ends. */
export async function* emptyPicture(): AsyncIterable<EventStreamEvent> {
  yield create(EventStreamEventSchema, { event: { case: "initialDataComplete", value: {} } });
}
/* eslint-enable @typescript-eslint/require-await */

/** Resolves when `signal` aborts (the gateway cancelled the call), for handlers that hang. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => { resolve(); }, { once: true });
  });
}

export interface StubGateway extends GatewayUnderTest {
  readonly manager: StubManager;
}

/**
 * A gateway app (test/helpers/gateway.ts: driven with inject, or listening if the test says so)
 * in front of stubManager(handlers); its calls' deadline is `options.requestTimeoutMs`, default 2 s.
 */
export async function stubGateway(handlers: ManagerStub = {}, options: GatewayOptions = {}): Promise<StubGateway> {
  const manager = await stubManager(handlers);
  const gateway = await gatewayTo(manager.address, { requestTimeoutMs: 2_000, ...options });
  return {
    ...gateway,
    manager,
    close: async () => {
      await gateway.close();
      manager.close();
    },
  };
}
