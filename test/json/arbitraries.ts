// fast-check arbitraries of valid Jobs: every one of the 25 fields, int64 extremes, nanosecond
// timestamps, proto3 optional strings set to "" or unset, empty and absent repeated fields and
// maps, oneof members, enum numbers the gateway does not know, and map keys such as "__proto__".
import { create } from "@bufbuild/protobuf";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import fc from "fast-check";
import type { ServiceSchema, Service_ServiceRestart } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { idProblem } from "norsk-manager-contract/lexical/ids.js";
import { MAX_SECONDS, MIN_SECONDS } from "norsk-manager-contract/lexical/timestamp.js";

/** Any Unicode text (no lone surrogates: protobuf strings are UTF-8). */
export const text = fc.oneof(fc.string({ unit: "binary", maxLength: 12 }), fc.constantFrom("", "0", "a/b~c", "__proto__"));

/** Text that is also an id a path can address (src/lexical/ids.ts), as a job's id must be when created. */
export const id = text.filter((t) => idProblem(t) === undefined);

/** Map keys, the dangerous ones included. */
const key = fc.oneof(fc.string({ unit: "binary", maxLength: 8 }), fc.constantFrom("__proto__", "constructor", "toString", "a\nb", ""));

/** A map object whose keys are own data properties, "__proto__" too (as JSON.parse builds). */
export function mapOf<V>(value: fc.Arbitrary<V>): fc.Arbitrary<Record<string, V>> {
  return fc.array(fc.tuple(key, value), { maxLength: 4 }).map((entries) => {
    const map: Record<string, V> = {};
    for (const [k, v] of entries) Object.defineProperty(map, k, { value: v, enumerable: true, writable: true, configurable: true });
    return map;
  });
}

const list = <T>(item: fc.Arbitrary<T>) => fc.array(item, { maxLength: 3 });
const optional = <T>(item: fc.Arbitrary<T>) => fc.option(item, { nil: undefined });

export const int64 = fc.oneof(fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n), fc.bigInt(-(2n ** 63n), 2n ** 63n - 1n));
export const uint64 = fc.oneof(fc.constantFrom(0n, 2n ** 64n - 1n), fc.bigInt(0n, 2n ** 64n - 1n));
export const uint32 = fc.oneof(fc.constantFrom(0, 4294967295), fc.nat({ max: 4294967295 }));

// -0 is not a distinct JSON number (JSON.stringify writes 0); NaN is not equal to itself.
const noNegativeZero = (n: number) => (Object.is(n, -0) ? 0 : n);
export const double = fc.double({ noNaN: true }).map(noNegativeZero);
export const float = fc.float({ noNaN: true }).map(noNegativeZero);

/** Nanos with 0, 3, 6 and 9 significant digits all likely. */
const nanos = fc.oneof(
  fc.constant(0),
  fc.nat({ max: 999 }).map((n) => n * 1_000_000),
  fc.nat({ max: 999_999 }).map((n) => n * 1000),
  fc.nat({ max: 999_999_999 }),
);

export const timestamp = fc
  .record({ seconds: fc.oneof(fc.constantFrom(MIN_SECONDS, MAX_SECONDS, 0n), fc.bigInt(MIN_SECONDS, MAX_SECONDS)), nanos })
  .map((t) => create(TimestampSchema, t));

/** Enum values: the known ones, and numbers a newer Manager might send (typed as the enum). */
export function enumValue<E extends number = number>(known: readonly number[]): fc.Arbitrary<E> {
  const unknown = fc.integer({ min: -2147483648, max: 2147483647 }).filter((n) => !known.includes(n));
  return fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: unknown }).map((n) => n as E);
}

const hostPort = fc.oneof(
  fc.constant({ case: undefined }),
  fc.constant({ case: "ephemeral" as const, value: {} }),
  fc.record({ minPort: uint32, maxPort: uint32 }).map((value) => ({ case: "range" as const, value })),
  fc.record({ port: uint32 }).map((value) => ({ case: "specific" as const, value })),
);

const serviceParameters = fc.record({
  portMappings: list(fc.record({ containerPort: uint32, protocol: enumValue([0, 1, 2]), hostPort, hostAddress: text, group: text })),
  environmentVariables: list(fc.record({ name: text, value: text })),
  sharedMemorySize: optional(uint64.map((value) => ({ value }))),
  cpuSet: list(uint32),
  volumeMounts: list(fc.record({ volumeName: text, containerPath: text, readOnly: fc.boolean() })),
});

type ServiceInit = MessageInitShape<typeof ServiceSchema>;

const service: fc.Arbitrary<ServiceInit> = fc.record({
  name: text,
  container: fc.oneof(
    fc.constant({ case: undefined }),
    optional(text.map((url) => ({ url }))).map((containerUrl) => ({ case: "docker" as const, value: { containerUrl } })),
  ),
  restart: enumValue<Service_ServiceRestart>([0, 1, 2]),
  dependsOn: list(text),
  configuration: text,
  restartCount: uint32,
  restartPeriod: uint32,
  command: text,
  parameters: optional(serviceParameters),
});

const requirements = fc.record({
  requiredCapacity: double,
  requiredCores: optional(uint32.map((value) => ({ value }))),
  requiredGpuCapacity: optional(float.map((value) => ({ value }))),
  requiredGpuModel: optional(text.map((value) => ({ value }))),
  requiredCapabilities: list(fc.record({ name: text, value: text })),
  priorityBand: enumValue([0, 1, 2]),
});

/** A valid Job with all 25 fields drawn; jobId (an id) and startDateTime always set (see job.ts). */
export const job: fc.Arbitrary<Job> = fc
  .record({
    jobId: id.map((jobId) => ({ jobId })),
    description: text,
    tags: mapOf(text),
    startDateTime: timestamp,
    currentHash: int64,
    managerConfiguration: text,
    services: list(service),
    norskMediaVersion: enumValue([0, 1, 2, 3]),
    norskServiceParameters: optional(serviceParameters),
    volumes: list(text),
    state: enumValue([0, 1, 2]),
    shape: text,
    architecture: text,
    subnet: text,
    availabilityDomain: text,
    cloud: enumValue([0, 1]),
    autoPlacement: optional(fc.record({ requirements: optional(requirements) })),
    extraSecurityGroups: list(text),
    launchConfigJson: optional(text),
    norskCpuList: list(uint32),
    productTemplate: optional(fc.record({ name: text, version: text })),
    productTemplateParameters: mapOf(text),
    templateLaunchDefaultsJson: optional(text),
    terminalState: optional(fc.record({ failureReason: text })),
    writeFiles: list(fc.record({ path: text, contents: text })),
  })
  .map((init) => create(JobSchema, init));
