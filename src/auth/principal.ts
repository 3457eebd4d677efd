// Who a request comes from, once src/auth/access.ts has checked its credentials: set on the
// request (request.principal) for the access log and for later readers (audit, metadata).

/** How the principal proved who it is. */
export type PrincipalKind = "jwt" | "api-key" | "certificate" | "anonymous";

export interface Principal {
  /** The JWT's `sub` (else its `client_id`), the API key's name, or the client certificate's subject (RFC 4514, src/auth/distinguished-name.ts). */
  readonly id: string;
  readonly kind: PrincipalKind;
  /** The scopes the credential carries (src/auth/scopes.ts); every scope for "anonymous". */
  readonly scopes: ReadonlySet<string>;
  /**
   * When the credential stops being valid, in ms since the epoch: a JWT's `exp`. Absent: it does
   * not expire (an API key, a certificate, anonymous). An event stream ends then.
   */
  readonly expiresAtMs?: number;
  /**
   * Aborted when the credential is withdrawn while the gateway runs: its entry of --api-keys
   * (an API key's, or a certificate's cert:<CN>) removed or changed when the file is re-read.
   * Absent: nothing withdraws it while it is valid (a JWT, anonymous). An event stream ends then.
   */
  readonly revoked?: AbortSignal;
}

declare module "fastify" {
  interface FastifyRequest {
    /**
     * Who made the request: null until the access hook has run, and on an open route (or with
     * no authentication configured: "anonymous").
     */
    principal: Principal | null;
  }
}
