// Configuration: flag, then environment variable, then default (docs/ARCHITECTURE.md §5). The TypeBox schema
// is the single source of each setting's type, range, default and help text; the Config type
// is derived from it, and a value that fails it stops start-up with one line naming it.
import { parseArgs } from "node:util";
import { Type } from "@sinclair/typebox";
import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

const LogLevel = Type.Union(
  ["fatal", "error", "warn", "info", "debug", "trace", "silent"].map((level) => Type.Literal(level)),
);

export const ConfigSchema = Type.Object(
  {
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080, description: "HTTP port (0 picks a free one)" }),
    host: Type.String({ minLength: 1, default: "127.0.0.1", description: "HTTP listen address" }),
    manager: Type.Optional(
      Type.String({
        pattern: "^(\\[[0-9a-fA-F:.]+\\]|[A-Za-z0-9.-]+):[0-9]{1,5}$",
        description: "Manager gRPC address host:port; unset starts the embedded reference Manager",
      }),
    ),
    dataDir: Type.String({ minLength: 1, default: "./data", description: "embedded Manager's data directory" }),
    requestTimeoutMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 10_000,
      description: "deadline of each gRPC call, in ms (a Grpc-Timeout header may shorten it)",
    }),
    logLevel: { ...LogLevel, default: "info", description: "log level (fatal ... trace, silent)" },
    sseHeartbeatMs: Type.Integer({
      minimum: 1,
      maximum: 3_600_000,
      default: 15_000,
      description: "interval of the heartbeat on /v1/events and /v1/status, in ms",
    }),
    sseBufferBytes: Type.Integer({
      minimum: 1024,
      maximum: 1_073_741_824,
      default: 1_048_576,
      description: "bytes an event-stream client may fall behind before it is closed with an error",
    }),
  },
  { additionalProperties: false },
);

export type Config = Static<typeof ConfigSchema>;

interface Setting {
  readonly key: keyof Config;
  readonly flag: string;
  readonly env: string;
}

/** How each setting is spelled on the command line and in the environment. */
export const SETTINGS: readonly Setting[] = [
  { key: "port", flag: "port", env: "PORT" },
  { key: "host", flag: "host", env: "HOST" },
  { key: "manager", flag: "manager", env: "MANAGER_ADDRESS" },
  { key: "dataDir", flag: "data-dir", env: "DATA_DIR" },
  { key: "requestTimeoutMs", flag: "request-timeout", env: "REQUEST_TIMEOUT_MS" },
  { key: "logLevel", flag: "log-level", env: "LOG_LEVEL" },
  { key: "sseHeartbeatMs", flag: "sse-heartbeat", env: "SSE_HEARTBEAT_MS" },
  { key: "sseBufferBytes", flag: "sse-buffer", env: "SSE_BUFFER_BYTES" },
];

/** A setting whose value is unusable; its message is the one line printed before exit 2. */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}

export type LoadResult = { readonly help: true } | { readonly help: false; readonly config: Config };

export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): LoadResult {
  const flags = parseFlags(argv);
  if (flags.help === true) return { help: true };
  const raw: Record<string, unknown> = {};
  for (const setting of SETTINGS) {
    const fromFlag = flags[setting.flag];
    const value = typeof fromFlag === "string" ? fromFlag : env[setting.env];
    const source = typeof fromFlag === "string" ? `--${setting.flag}` : setting.env;
    if (value === undefined || value === "") continue;
    raw[setting.key] = convert(ConfigSchema.properties[setting.key], value, source);
  }
  const config = Value.Default(ConfigSchema, raw) as Record<string, unknown>;
  const first = Value.Errors(ConfigSchema, config).First();
  if (first !== undefined) {
    const setting = SETTINGS.find((s) => `/${s.key}` === first.path);
    const name = setting === undefined ? first.path : `--${setting.flag} (${setting.env})`;
    throw new ConfigError(`${name}: ${first.message} (got ${JSON.stringify(first.value)})`);
  }
  return { help: false, config: config as Config };
}

function parseFlags(argv: readonly string[]): Record<string, string | boolean | undefined> {
  const options: Record<string, { type: "string" | "boolean" }> = { help: { type: "boolean" } };
  for (const setting of SETTINGS) options[setting.flag] = { type: "string" };
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    // node's messages can run to several lines; the first one says what is wrong.
    const message = error instanceof Error ? error.message : String(error);
    throw new ConfigError(message.split("\n")[0] ?? message);
  }
}

/** Integers must be written as plain decimal digits: "1e3", "10.0" and " 5" are refused. */
function convert(schema: TSchema, value: string, source: string): unknown {
  if (schema.type !== "integer") return value;
  if (!/^[0-9]{1,15}$/.test(value)) throw new ConfigError(`${source}: must be a whole number (got ${JSON.stringify(value)})`);
  return Number(value);
}

export function helpText(): string {
  const rows = SETTINGS.map((s) => {
    const schema = ConfigSchema.properties[s.key] as TSchema & { description?: string; default?: unknown };
    const fallback = schema.default === undefined ? "unset" : String(schema.default);
    return `  --${s.flag.padEnd(17)} ${s.env.padEnd(20)} ${(schema.description ?? "").padEnd(80)} default: ${fallback}`;
  });
  return [
    "Usage: norsk-manager-gateway [options]",
    "",
    "Options (flag, then environment variable, then default):",
    ...rows,
    "  --help                                 print this help",
    "",
  ].join("\n");
}
