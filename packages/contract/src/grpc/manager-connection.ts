// The gateway's channels to the Manager: one for unary calls and short reads, one for streams
// (EventStream, CreateStatusChannel, and the JobSearch of GET /v1/jobs), each its own HTTP/2
// connection. Streams are the calls that get cancelled (a client leaves, a search stops at
// `limit`), and each cancellation is an RST_STREAM to the Manager; an HTTP/2 server counts
// those per connection, and one that receives them faster than its limit (nghttp2, so a Node
// Manager: a burst of 1,000, then 33/s) takes it for a rapid-reset attack and closes the whole
// connection, failing every call on it. On their own connection, streams can no longer take
// the unary calls (reads and writes of jobs, readiness) down with them.
import type { Client as GrpcChannel, ChannelOptions, Interceptor } from "@grpc/grpc-js";
import { Manager } from "../gen/norsk/api/manager_pb.js";
import { Health } from "../gen/grpc/health/v1/health_pb.js";
import { createChannel, createClient } from "./client.js";
import { channelCredentials, tlsChannelOptions } from "./tls.js";
import type { ClientTls } from "./tls.js";
import type { BytesClient } from "./client.js";
import type { Client } from "./types.js";

export interface ManagerConnection {
  readonly address: string;
  /** The Manager service on `channel`: unary calls, and JobSearch by id (read to its end). */
  readonly manager: Client<typeof Manager>;
  readonly health: Client<typeof Health>;
  /** The channel of unary calls. */
  readonly channel: GrpcChannel;
  /** The Manager service on `streamChannel`, for the searches of GET /v1/jobs. */
  readonly streams: Client<typeof Manager>;
  /**
   * The Manager's server streams on `streamChannel`, messages still encoded, for the event
   * routes; without a timeout, a call has no deadline.
   */
  readonly encodedStreams: BytesClient<typeof Manager>;
  /** The channel of streams, on a connection of its own. */
  readonly streamChannel: GrpcChannel;
  close(): void;
}

/** The options of both channels; bench:grpc measures variants of them. */
export const CHANNEL_OPTIONS: ChannelOptions = {
  // Keep the connection warm and notice a dead Manager between requests.
  "grpc.keepalive_time_ms": 30_000,
  "grpc.keepalive_timeout_ms": 10_000,
  "grpc.keepalive_permit_without_calls": 1,
  // grpc-js shares one connection among the channels of a process that have the same target
  // and options; a pool of the channel's own gives each channel its own connection.
  "grpc.use_local_subchannel_pool": 1,
};

/** The default of --max-message-size (MAX_MESSAGE_SIZE_BYTES): 16 MiB. */
export const DEFAULT_MAX_MESSAGE_SIZE_BYTES = 16 * 1024 * 1024;

export interface ConnectOptions {
  /** Deadline of a unary call or read that names none, in ms. */
  readonly defaultTimeoutMs: number;
  /** The Manager's TLS. Default: none, plaintext. */
  readonly tls?: ClientTls | undefined;
  /** Run around every call (metrics, traces). Default: none. */
  readonly interceptors?: readonly Interceptor[];
  /**
   * The largest message either way, in bytes: grpc-js's receive and send limits of both
   * channels. An answer beyond it fails its call (RESOURCE_EXHAUSTED "Received message larger
   * than max"), answered as a 502 (src/grpc/errors.ts, UnusableAnswerError). Default:
   * DEFAULT_MAX_MESSAGE_SIZE_BYTES, where grpc-js's own receive limit is 4 MiB: an event
   * stream's picture carries each active job with its history.
   */
  readonly maxMessageSizeBytes?: number;
}

/** Channels to the Manager at `address` (docs/architecture.md, "Upstream faults"). */
export function connectManager(address: string, options: ConnectOptions): ManagerConnection {
  const { defaultTimeoutMs, tls, interceptors = [], maxMessageSizeBytes = DEFAULT_MAX_MESSAGE_SIZE_BYTES } = options;
  const limits = { "grpc.max_receive_message_length": maxMessageSizeBytes, "grpc.max_send_message_length": maxMessageSizeBytes };
  const settings = { credentials: channelCredentials(tls), options: { ...CHANNEL_OPTIONS, ...limits, ...tlsChannelOptions(tls) }, interceptors };
  const channel = createChannel(address, settings);
  const streamChannel = createChannel(address, settings);
  return {
    address,
    manager: createClient(Manager, channel, { defaultTimeoutMs }),
    health: createClient(Health, channel, { defaultTimeoutMs }),
    channel,
    streams: createClient(Manager, streamChannel, { defaultTimeoutMs }),
    encodedStreams: createClient(Manager, streamChannel, { messages: "bytes" }),
    streamChannel,
    close: () => {
      channel.close();
      streamChannel.close();
    },
  };
}
