// Enums as the mirror writes them: the value's name in lower case, or, for a value this gateway
// does not know (a newer Manager), its number. The names are spelled once here; a test checks
// them against the generated descriptors, so a proto change cannot leave them stale.
import { Type } from "@sinclair/typebox";
import type { TInteger, TLiteral, TUnion } from "@sinclair/typebox";
import { named } from "./common.js";

type Literals<T extends readonly string[]> = { [K in keyof T]: TLiteral<T[K]> };

/** anyOf: the names as constants, then any int32 (for numbers the gateway does not know). */
export type TEnum<T extends readonly string[]> = TUnion<[...Literals<T>, TInteger]>;

/** The enum `protoName` as the component `name` (an enum's component is named as its TypeScript constant). */
export function EnumOf<const T extends readonly string[]>(name: string, protoName: string, names: T, description: string): TEnum<T> {
  // The names are the union's constants (one `enum` in the document), and that a known value is
  // always its name is said once, by the document's description: the integer branch says
  // what a number is, and the union only what the enum is.
  const unknown = Type.Integer({
    minimum: -2147483648,
    maximum: 2147483647,
    description: `A ${protoName} value unknown to this gateway, as its number.`,
  });
  const schema = Type.Union([...names.map((n) => Type.Literal(n)), unknown], {
    description,
    examples: [names[0]],
  });
  return named(schema, name) as unknown as TEnum<T>;
}

export const NorskVersion = EnumOf(
  "NorskVersion",
  "norsk.api.manager.Version",
  ["recommended", "latest", "previous_recommended", "lts"] as const,
  "A Norsk release channel.",
);
/** The names of JobState's values (the state= filter of the job search reads them too). */
export const JOB_STATE_NAMES = ["pre", "active", "post"] as const;
export const JobState = EnumOf("JobState", "norsk.api.manager.Job.JobState", JOB_STATE_NAMES, "The state of a job.");
export const Cloud = EnumOf("Cloud", "norsk.api.manager.Cloud", ["aws", "oci"] as const, "The cloud a job runs in.");
export const PriorityBand = EnumOf(
  "PriorityBand",
  "norsk.api.manager.PriorityBand",
  ["gold", "silver", "bronze"] as const,
  "Scheduling priority of an auto-placed job.",
);
export const Health = EnumOf("Health", "norsk.api.manager.Health", ["healthy", "unstable", "failed"] as const, "Health of a provider region.");
export const ServiceRestart = EnumOf(
  "ServiceRestart",
  "norsk.api.common.Service.ServiceRestart",
  ["never", "on_failure", "always"] as const,
  "When the worker restarts a service.",
);
export const ProtocolFamily = EnumOf("ProtocolFamily", "norsk.api.common.ProtocolFamily", ["any", "udp", "tcp"] as const, "Transport protocol of a port.");
export const Architecture = EnumOf("Architecture", "norsk.api.common.Architecture", ["x86_64", "aarch_64"] as const, "CPU architecture of a node.");

/** Every enum schema above by its protobuf name, for the test that checks it against the descriptor. */
export const ENUM_SCHEMAS = {
  "norsk.api.manager.Version": NorskVersion,
  "norsk.api.manager.Job.JobState": JobState,
  "norsk.api.manager.Cloud": Cloud,
  "norsk.api.manager.PriorityBand": PriorityBand,
  "norsk.api.manager.Health": Health,
  "norsk.api.common.Service.ServiceRestart": ServiceRestart,
  "norsk.api.common.ProtocolFamily": ProtocolFamily,
  "norsk.api.common.Architecture": Architecture,
} as const;
