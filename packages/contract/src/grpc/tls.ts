// TLS for the bridge, both ends: what a channel presents and trusts (the gateway's connection to
// a Manager), and what a server presents and requires (the reference Manager). Material is PEM
// bytes, already read; reading files and naming the setting at fault is the caller's business.
import { ServerCredentials, credentials } from "@grpc/grpc-js";
import type { ChannelCredentials, ChannelOptions } from "@grpc/grpc-js";
import { createSecureContext } from "node:tls";

export interface ClientTls {
  /**
   * CA certificates that may sign the server's certificate. Default: Node's default CAs (its
   * bundled roots, plus NODE_EXTRA_CA_CERTS; the system's store with --use-openssl-ca).
   */
  readonly ca?: Buffer;
  /** Client certificate chain and its key, for a server that requires one (mTLS). Default: none. */
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /**
   * The name the server's certificate must carry, and the :authority of every call. Default:
   * the host part of the address dialled.
   */
  readonly serverName?: string;
}

export interface ServerTls {
  /** Certificate chain the server presents, and its key. */
  readonly cert: Buffer;
  readonly key: Buffer;
  /** CAs whose client certificates are required and accepted. Default: no client certificate asked for. */
  readonly clientCa?: Buffer;
}

/**
 * The credentials of a channel: TLS when `tls` is given, plaintext otherwise. The context is
 * made here, with only the keys given, rather than by grpc-js's createSsl: without a `ca`,
 * that one trusts only Node's bundled roots, ignoring NODE_EXTRA_CA_CERTS and
 * --use-openssl-ca, which are how an operator adds a private CA or the system's store.
 */
export function channelCredentials(tls: ClientTls | undefined): ChannelCredentials {
  if (tls === undefined) return credentials.createInsecure();
  const context = createSecureContext({
    ...(tls.ca === undefined ? {} : { ca: tls.ca }),
    ...(tls.cert === undefined || tls.key === undefined ? {} : { cert: tls.cert, key: tls.key }),
  });
  return credentials.createFromSecureContext(context);
}

/** Channel options that `tls` needs: the expected server name, where one is set. */
export function tlsChannelOptions(tls: ClientTls | undefined): ChannelOptions {
  if (tls?.serverName === undefined) return {};
  return { "grpc.ssl_target_name_override": tls.serverName, "grpc.default_authority": tls.serverName };
}

/** The credentials a server listens with: TLS when `tls` is given, plaintext otherwise. */
export function serverCredentials(tls: ServerTls | undefined): ServerCredentials {
  if (tls === undefined) return ServerCredentials.createInsecure();
  const pair = [{ cert_chain: tls.cert, private_key: tls.key }];
  return ServerCredentials.createSsl(tls.clientCa ?? null, pair, tls.clientCa !== undefined);
}
