// The bridge between generated service descriptors and grpc-js (clients and servers).
export { createChannel, createClient } from "./client.js";
export type {
  BytesClient,
  BytesClientSettings,
  BytesStreamCall,
  BytesStreamHandlers,
  ChannelSettings,
  ClientSettings,
  OpenBytesStream,
} from "./client.js";
export { encodeStreamMessage } from "./codec.js";
export { addPartialService, addService, listen, serviceDefinition } from "./server.js";
export type { ServeOptions } from "./server.js";
export { Code, GrpcError } from "./errors.js";
export type { CallOptions, Client, HandlerContext, PartialServiceImpl, ServiceImpl, ServiceShape } from "./types.js";
export { channelCredentials, serverCredentials, tlsChannelOptions } from "./tls.js";
export type { ClientTls, ServerTls } from "./tls.js";
