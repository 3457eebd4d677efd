// Which peers are trusted to say who the client is (--trust-proxy). A request whose connection
// comes from one of them has its client address taken from X-Forwarded-For (the right-most
// address not itself trusted), its Host from X-Forwarded-Host and its scheme from
// X-Forwarded-Proto; a request from any other peer has these headers ignored, so a client
// cannot name itself. The address is what the access log, --rate-limit and the Host and Origin
// checks (src/server/cross-site.ts) read. fastify's trustProxy does the work (through
// proxy-addr); docs/operations/deploying.md, "Behind a proxy", says why the list is one of
// addresses and ranges only: neither a hop count nor the Forwarded header (RFC 7239).
import { isIP } from "node:net";

/** Names proxy-addr knows for address ranges: 127.0.0.0/8 and ::1, link-local, and private. */
export const NAMED_RANGES: readonly string[] = ["loopback", "linklocal", "uniquelocal"];

/** One item of --trust-proxy: an IP address, an address with a prefix length (a CIDR), or a named range. */
export const TRUSTED_PROXY_PATTERN = `^(${NAMED_RANGES.join("|")}|[0-9A-Fa-f:.]+(/[0-9]{1,3})?)$`;

/**
 * Why `entry` (matching TRUSTED_PROXY_PATTERN) is not a usable address or range, or undefined
 * when it is. The pattern lets through what only parsing refuses: "1.2.3", a prefix too long.
 */
export function trustedProxyProblem(entry: string): string | undefined {
  if (NAMED_RANGES.includes(entry)) return undefined;
  const [address = "", prefix] = entry.split("/");
  const family = isIP(address);
  if (family === 0) {
    return /^[0-9]+$/.test(entry) ? "is a hop count, which is not accepted: list the proxies' addresses or ranges" : "is not an IP address or CIDR range";
  }
  if (prefix !== undefined && Number(prefix) > (family === 4 ? 32 : 128)) return `has a prefix length larger than ${family === 4 ? "32" : "128"}`;
  return undefined;
}

/** fastify's trustProxy for a --trust-proxy list: false (trust no peer) when it is empty. */
export function trustProxyOption(trusted: readonly string[]): false | string[] {
  return trusted.length === 0 ? false : [...trusted];
}
