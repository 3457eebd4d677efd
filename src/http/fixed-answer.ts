// An answer whose body never changes while the gateway runs (the OpenAPI document), sent as a
// browser and a cache would want it: compressed once, with brotli and with gzip, and sent in
// the coding Accept-Encoding prefers (RFC 9110 §12.5.3); one weak ETag for every coding, as
// they are the same document, so If-None-Match gives a 304 whichever was cached; and
// Cache-Control: no-cache, so a cache keeps it but asks each time (the document changes when
// the gateway is upgraded, and asking costs a 304).
import { createHash } from "node:crypto";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import type { FastifyReply, FastifyRequest } from "fastify";

type Coding = "br" | "gzip" | "identity";

interface Encoded {
  readonly etag: string;
  readonly bodies: Readonly<Record<Coding, Buffer>>;
}

/** How much `header` (Accept-Encoding) wants `coding`: its own q, else that of `*`; identity is acceptable unless refused. */
export function codingQ(header: string | undefined, coding: Coding): number {
  if (header === undefined) return coding === "identity" ? 1 : 0;
  let own: number | undefined;
  let any: number | undefined;
  for (const part of header.split(",")) {
    const [name = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const qParam = params.find((p) => p.startsWith("q="));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2));
    if (Number.isNaN(q)) continue;
    if (name === coding) own = Math.max(own ?? 0, q);
    else if (name === "*") any = Math.max(any ?? 0, q);
  }
  return own ?? any ?? (coding === "identity" ? 1 : 0);
}

/** The coding to send: brotli, then gzip, then none, the first that the client wants at least as much as the others. */
export function chooseCoding(header: string | undefined): Coding {
  const [best] = (["br", "gzip", "identity"] as const).map((coding) => ({ coding, q: codingQ(header, coding) })).sort((a, b) => b.q - a.q);
  // Nothing acceptable at all: identity anyway (RFC 9110 §12.5.3 allows it rather than a 415).
  return best !== undefined && best.q > 0 ? best.coding : "identity";
}

/** True when If-None-Match names `etag` (weak comparison) or is `*`. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  const opaque = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((raw) => {
    const tag = raw.trim();
    return tag === "*" || tag.replace(/^W\//, "") === opaque;
  });
}

export class FixedAnswer {
  private encoded: Encoded | undefined;

  /** `body` is made and compressed on the first request, then kept. */
  constructor(
    private readonly body: () => string,
    private readonly contentType: string,
  ) {}

  send(request: FastifyRequest, reply: FastifyReply): FastifyReply {
    const { etag, bodies } = (this.encoded ??= encode(this.body()));
    void reply.header("etag", etag).header("cache-control", "no-cache").header("vary", "accept-encoding");
    const ifNoneMatch = request.headers["if-none-match"];
    if (matches(ifNoneMatch, etag)) return reply.code(304).send();
    const coding = chooseCoding(request.headers["accept-encoding"]);
    if (coding !== "identity") void reply.header("content-encoding", coding);
    return reply.type(this.contentType).send(bodies[coding]);
  }
}

function encode(text: string): Encoded {
  const identity = Buffer.from(text, "utf8");
  const digest = createHash("sha256").update(identity).digest("base64url").slice(0, 27);
  return {
    etag: `W/"${digest}"`,
    bodies: {
      identity,
      gzip: gzipSync(identity, { level: 9 }),
      br: brotliCompressSync(identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: identity.length },
      }),
    },
  };
}
