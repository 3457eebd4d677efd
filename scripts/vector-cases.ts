// The JSON ⇄ protobuf vectors' cases. Each case pairs the JSON the mirror must produce (written
// by hand, from the rules of docs/architecture.md, "JSON rules") with a message built by the
// official
// @norskvideo/norsk-api 1.0.384 package: its own generated classes and its own protobuf runtime,
// an implementation independent of ours. scripts/vectors.ts encodes those messages into
// test/fixtures/vectors.json; test/json/vectors.test.ts runs every vector against our mirror,
// and test/json/vectors-fresh.test.ts fails when the file is not what these cases make.
//
// Job fields 16-25 are this project's own (docs/architecture.md, "The contract: proto/"), unknown
// to 1.0.384, so they are written with that package's BinaryWriter, field by field, after the
// fields it knows: the
// same bytes a peer that knows them would send, in field-number order.
import { createRequire } from "node:module";
import type * as ApiPb from "@norskvideo/norsk-api/lib/manager_pb.js";
import type * as ApiCommon from "@norskvideo/norsk-api/lib/shared/common_pb.js";

const require = createRequire(import.meta.url);
const pb = require("@norskvideo/norsk-api/lib/manager_pb.js") as typeof ApiPb;
const common = require("@norskvideo/norsk-api/lib/shared/common_pb.js") as typeof ApiCommon;

type ApiTimestamp = NonNullable<ApiPb.Job["startDateTime"]>;
interface Writer {
  tag(field: number, wireType: number): Writer;
  int32(value: number): Writer;
  uint32(value: number): Writer;
  double(value: number): Writer;
  float(value: number): Writer;
  string(value: string): Writer;
  fork(): Writer;
  join(): Writer;
  finish(): Uint8Array;
}
/** The package's own protobuf runtime (0.3): Timestamp, and the writer for fields 16-25. */
const runtime = createRequire(require.resolve("@norskvideo/norsk-api/lib/manager_pb.js"))("@bufbuild/protobuf") as {
  Timestamp: new (init: { seconds: bigint; nanos: number }) => ApiTimestamp;
  BinaryWriter: new () => Writer;
};
const VARINT = 0;
const FIXED64 = 1;
const DELIMITED = 2;
const FIXED32 = 5;

export interface MessageCase {
  readonly name: string;
  readonly type: string;
  readonly note?: string;
  readonly json: Record<string, unknown>;
  /** The message's bytes, as the official package encodes it. */
  readonly binary: () => Uint8Array;
}

export interface SearchCase {
  readonly name: string;
  readonly type: "norsk.api.manager.JobSearchRequest";
  readonly note?: string;
  readonly query: string;
  readonly binary: () => Uint8Array;
}

const MAX_INT64 = 2n ** 63n - 1n;
const MIN_INT64 = -(2n ** 63n);
const MAX_UINT64 = 2n ** 64n - 1n;

/** An enum number that 1.0.384 does not define: what a newer Manager may send. */
// Typed as never so that it fits any enum field; the number goes on the wire as it is.
const unknownEnum = (value: number): never => value as never;
const time = (seconds: bigint, nanos = 0): ApiTimestamp => new runtime.Timestamp({ seconds, nanos });
const jobId = (id: string): ApiCommon.JobId => new common.JobId({ jobId: id });
/** 2025-12-02T10:00:00Z */
const DEC_2 = time(1_764_669_600n);

/** Fields 1-15 by the package, then fields 16-25 by its writer. */
function withNewerFields(job: ApiPb.Job, write: (w: Writer) => void): Uint8Array {
  const writer = new runtime.BinaryWriter();
  write(writer);
  return Buffer.concat([job.toBinary(), writer.finish()]);
}

/** The JSON of a Job whose fields are all zero but the ones given: every required field present. */
function jobJson(fields: Record<string, unknown>): Record<string, unknown> {
  return {
    jobId: "",
    description: "",
    tags: {},
    startDateTime: "2025-12-02T10:00:00Z",
    currentHash: "0",
    services: [],
    norskMediaVersion: "recommended",
    state: "pre",
    shape: "",
    architecture: "",
    subnet: "",
    availabilityDomain: "",
    cloud: "aws",
    ...fields,
  };
}

const EMPTY_PARAMETERS = { portMappings: [], environmentVariables: [], cpuSet: [], volumeMounts: [] };

export const MESSAGE_CASES: readonly MessageCase[] = [
  {
    name: "minimal job: only id and start; every required output field present with its zero value",
    type: "norsk.api.manager.Job",
    note: 'Optional fields are absent: managerConfiguration "" is omitted, volumes [] omitted, norskServiceParameters unset omitted. cloud is field 16 (zero value aws) and so has no bytes here.',
    json: jobJson({ jobId: "j-min" }),
    binary: () => new pb.Job({ jobId: jobId("j-min"), startDateTime: DEC_2 }).toBinary(),
  },
  {
    name: "fields 1-15 fully set, int64 extremes, nanosecond timestamp",
    type: "norsk.api.manager.Job",
    note: "Inside nested messages every field is emitted (they have no optional marker in the SDK types); OptionalInt64 flattens to an optional decimal string; ContainerUrl flattens to its url; the oneof host_port appears as exactly one of ephemeral/range/specific.",
    json: jobJson({
      jobId: "tenant/a:b c-ü",
      description: "all of it",
      tags: { env: "prod", team: "media" },
      startDateTime: "2100-01-01T00:00:00.123456789Z",
      currentHash: "-9223372036854775808",
      managerConfiguration: '{"a":1}',
      services: [
        {
          name: "norsk",
          docker: { containerUrl: "docker.io/norsk/norsk:1.2" },
          restart: "on_failure",
          dependsOn: ["db"],
          configuration: "cfg",
          restartCount: 3,
          restartPeriod: 60,
          command: "run",
          parameters: {
            portMappings: [
              { containerPort: 8080, protocol: "tcp", specific: { port: 80 }, hostAddress: "0.0.0.0", group: "g" },
              { containerPort: 5001, protocol: "udp", range: { minPort: 6000, maxPort: 6010 }, hostAddress: "", group: "" },
              { containerPort: 9000, protocol: "any", ephemeral: {}, hostAddress: "", group: "" },
            ],
            environmentVariables: [{ name: "A", value: "b" }],
            sharedMemorySize: "18446744073709551615",
            cpuSet: [0, 2],
            volumeMounts: [{ volumeName: "v", containerPath: "/data", readOnly: true }],
          },
        },
      ],
      norskMediaVersion: "previous_recommended",
      norskServiceParameters: { ...EMPTY_PARAMETERS, cpuSet: [1] },
      volumes: ["v", "w"],
      state: "active",
      shape: "VM.Standard.E4.Flex",
      architecture: "x86_64",
      subnet: "sn",
      availabilityDomain: "AD-1",
    }),
    binary: () =>
      new pb.Job({
        jobId: jobId("tenant/a:b c-ü"),
        description: "all of it",
        tags: { env: "prod", team: "media" },
        startDateTime: time(4_102_444_800n, 123_456_789),
        currentHash: MIN_INT64,
        managerConfiguration: '{"a":1}',
        services: [
          new common.Service({
            name: "norsk",
            container: { case: "docker", value: new common.DockerContainer({ containerUrl: new common.ContainerUrl({ url: "docker.io/norsk/norsk:1.2" }) }) },
            restart: common.Service_ServiceRestart.ON_FAILURE,
            dependsOn: ["db"],
            configuration: "cfg",
            restartCount: 3,
            restartPeriod: 60,
            command: "run",
            parameters: new common.ServiceParameters({
              portMappings: [
                new common.PortMapping({
                  containerPort: 8080,
                  protocol: common.ProtocolFamily.TCP,
                  hostPort: { case: "specific", value: new common.HostPortSpecific({ port: 80 }) },
                  hostAddress: "0.0.0.0",
                  group: "g",
                }),
                new common.PortMapping({
                  containerPort: 5001,
                  protocol: common.ProtocolFamily.UDP,
                  hostPort: { case: "range", value: new common.HostPortRange({ minPort: 6000, maxPort: 6010 }) },
                }),
                new common.PortMapping({
                  containerPort: 9000,
                  protocol: common.ProtocolFamily.ANY,
                  hostPort: { case: "ephemeral", value: new common.HostPortEphemeral() },
                }),
              ],
              environmentVariables: [new common.EnvironmentVariable({ name: "A", value: "b" })],
              sharedMemorySize: new common.OptionalInt64({ value: MAX_UINT64 }),
              cpuSet: [0, 2],
              volumeMounts: [new common.VolumeMount({ volumeName: "v", containerPath: "/data", readOnly: true })],
            }),
          }),
        ],
        norskMediaVersion: pb.Version.PREVIOUS_RECOMMENDED,
        norskServiceParameters: new common.ServiceParameters({ cpuSet: [1] }),
        volumes: ["v", "w"],
        state: pb.Job_JobState.ACTIVE,
        shape: "VM.Standard.E4.Flex",
        architecture: "x86_64",
        subnet: "sn",
        availabilityDomain: "AD-1",
      }).toBinary(),
  },
  {
    name: "an enum number the gateway does not know passes through as a number",
    type: "norsk.api.manager.Job",
    note: "state 7 is not PRE/ACTIVE/POST: a newer Manager. JSON carries the integer; writing it back sends 7.",
    json: jobJson({ jobId: "j-enum", startDateTime: "1970-01-01T00:00:00Z", state: 7 }),
    binary: () => new pb.Job({ jobId: jobId("j-enum"), startDateTime: time(0n), state: unknownEnum(7) }).toBinary(),
  },
  {
    name: "the newer fields 16-25, all set; launchConfigJson present but empty",
    type: "norsk.api.manager.Job",
    note: 'Field numbers are this project\'s own (docs/architecture.md, "The contract: proto/"). launchConfigJson is proto3 optional: the tag with length 0 means "present, empty", and the JSON keeps "". templateLaunchDefaultsJson is set. norskCpuList is packed.',
    json: jobJson({
      jobId: "j-new",
      cloud: "oci",
      autoPlacement: {
        requirements: {
          requiredCapacity: 0.5,
          requiredCores: 4,
          requiredGpuCapacity: 0.25,
          requiredGpuModel: "H100",
          requiredCapabilities: [{ name: "gpu", value: "nvenc" }],
          priorityBand: "bronze",
        },
      },
      extraSecurityGroups: ["sg-a", "sg-b"],
      launchConfigJson: "",
      norskCpuList: [0, 4294967295],
      productTemplate: { name: "tpl", version: "1.2.3" },
      productTemplateParameters: { K: "V" },
      templateLaunchDefaultsJson: '{"cpu":2}',
      terminalState: { failureReason: "restart ceiling exceeded" },
      writeFiles: [{ path: "/etc/x.conf", contents: "a=b\n" }],
    }),
    binary: () =>
      withNewerFields(new pb.Job({ jobId: jobId("j-new"), startDateTime: DEC_2 }), (w) => {
        w.tag(16, VARINT).int32(1);
        w.tag(17, DELIMITED).fork().tag(1, DELIMITED).fork();
        w.tag(1, FIXED64).double(0.5);
        w.tag(2, DELIMITED).fork().tag(1, VARINT).int32(4).join();
        w.tag(3, DELIMITED).fork().tag(1, FIXED32).float(0.25).join();
        w.tag(4, DELIMITED).fork().tag(1, DELIMITED).string("H100").join();
        w.tag(5, DELIMITED).fork().tag(1, DELIMITED).string("gpu").tag(2, DELIMITED).string("nvenc").join();
        w.tag(6, VARINT).int32(2);
        w.join().join();
        w.tag(18, DELIMITED).string("sg-a").tag(18, DELIMITED).string("sg-b");
        w.tag(19, DELIMITED).string("");
        w.tag(20, DELIMITED).fork().uint32(0).uint32(4_294_967_295).join();
        w.tag(21, DELIMITED).fork().tag(1, DELIMITED).string("tpl").tag(2, DELIMITED).string("1.2.3").join();
        w.tag(22, DELIMITED).fork().tag(1, DELIMITED).string("K").tag(2, DELIMITED).string("V").join();
        w.tag(23, DELIMITED).string('{"cpu":2}');
        w.tag(24, DELIMITED).fork().tag(1, DELIMITED).string("restart ceiling exceeded").join();
        w.tag(25, DELIMITED).fork().tag(1, DELIMITED).string("/etc/x.conf").tag(2, DELIMITED).string("a=b\n").join();
      }),
  },
  {
    name: "int64 at its maximum, the latest timestamp, uint64 zero that is present",
    type: "norsk.api.manager.Job",
    note: 'currentHash 2^63-1; 9999-12-31T23:59:59.999999999Z is the last instant the mirror accepts; sharedMemorySize {value: 0} is set, so "0" is emitted, unlike an unset OptionalInt64 (omitted).',
    json: jobJson({
      jobId: "j-max",
      startDateTime: "9999-12-31T23:59:59.999999999Z",
      currentHash: "9223372036854775807",
      norskServiceParameters: { ...EMPTY_PARAMETERS, sharedMemorySize: "0" },
    }),
    binary: () =>
      new pb.Job({
        jobId: jobId("j-max"),
        startDateTime: time(253_402_300_799n, 999_999_999),
        currentHash: MAX_INT64,
        norskServiceParameters: new common.ServiceParameters({ sharedMemorySize: new common.OptionalInt64({ value: 0n }) }),
      }).toBinary(),
  },
  {
    name: "the earliest timestamp, and int64 -1",
    type: "norsk.api.manager.Job",
    note: "0001-01-01T00:00:00Z is the first instant the mirror accepts; -1 is ten bytes of varint on the wire.",
    json: jobJson({ jobId: "j-min-time", startDateTime: "0001-01-01T00:00:00Z", currentHash: "-1" }),
    binary: () => new pb.Job({ jobId: jobId("j-min-time"), startDateTime: time(-62_135_596_800n), currentHash: -1n }).toBinary(),
  },
  {
    name: "a timestamp just before 1970 keeps all nine fractional digits",
    type: "norsk.api.manager.Job",
    note: "seconds -1 with nanos 999999999 is 1969-12-31T23:59:59.999999999Z: the fraction counts forward from the (negative) second.",
    json: jobJson({ jobId: "j-1969", startDateTime: "1969-12-31T23:59:59.999999999Z" }),
    binary: () => new pb.Job({ jobId: jobId("j-1969"), startDateTime: time(-1n, 999_999_999) }).toBinary(),
  },
  {
    name: "microseconds print as six fractional digits",
    type: "norsk.api.manager.Job",
    note: "Output has 0, 3, 6 or 9 fractional digits, as few as the value needs: .123456, not .123456000.",
    json: jobJson({ jobId: "j-micro", startDateTime: "2025-12-02T10:00:00.123456Z" }),
    binary: () => new pb.Job({ jobId: jobId("j-micro"), startDateTime: time(1_764_669_600n, 123_456_000) }).toBinary(),
  },
  {
    name: "milliseconds print as three digits",
    type: "norsk.api.manager.Job",
    json: jobJson({ jobId: "j-milli", startDateTime: "2025-12-02T10:00:00.500Z" }),
    binary: () => new pb.Job({ jobId: jobId("j-milli"), startDateTime: time(1_764_669_600n, 500_000_000) }).toBinary(),
  },
  {
    name: "one nanosecond prints as nine digits",
    type: "norsk.api.manager.Job",
    json: jobJson({ jobId: "j-nano", startDateTime: "2025-12-02T10:00:00.000000001Z" }),
    binary: () => new pb.Job({ jobId: jobId("j-nano"), startDateTime: time(1_764_669_600n, 1) }).toBinary(),
  },
  {
    name: '"" versus absent: empty strings inside a service are emitted, an empty sub-message is present',
    type: "norsk.api.manager.Job",
    note: 'A service with every field at its zero value still shows each of them ("" and 0 and []); parameters set to an empty ServiceParameters is present (its lists emitted empty), while the unset docker member and the unset sharedMemorySize are omitted. templateLaunchDefaultsJson set to "" is present; launchConfigJson is absent.',
    json: jobJson({
      jobId: "j-empty",
      services: [
        {
          name: "",
          restart: "never",
          dependsOn: [],
          configuration: "",
          restartCount: 0,
          restartPeriod: 0,
          command: "",
          parameters: EMPTY_PARAMETERS,
        },
      ],
      norskServiceParameters: EMPTY_PARAMETERS,
      templateLaunchDefaultsJson: "",
    }),
    binary: () =>
      withNewerFields(
        new pb.Job({
          jobId: jobId("j-empty"),
          startDateTime: DEC_2,
          services: [new common.Service({ parameters: new common.ServiceParameters() })],
          norskServiceParameters: new common.ServiceParameters(),
        }),
        (w) => {
          w.tag(23, DELIMITED).string("");
        },
      ),
  },
  {
    name: "unknown enum numbers inside nested messages and in the newer fields pass through",
    type: "norsk.api.manager.Job",
    note: "restart 9, protocol 7, norskMediaVersion 42 and cloud 5 are not values this gateway knows (a newer Manager): each stays an integer.",
    json: jobJson({
      jobId: "j-enum-nested",
      norskMediaVersion: 42,
      cloud: 5,
      services: [
        {
          name: "s",
          restart: 9,
          dependsOn: [],
          configuration: "",
          restartCount: 0,
          restartPeriod: 0,
          command: "",
          parameters: {
            ...EMPTY_PARAMETERS,
            portMappings: [{ containerPort: 1, protocol: 7, hostAddress: "", group: "" }],
          },
        },
      ],
    }),
    binary: () =>
      withNewerFields(
        new pb.Job({
          jobId: jobId("j-enum-nested"),
          startDateTime: DEC_2,
          norskMediaVersion: unknownEnum(42),
          services: [
            new common.Service({
              name: "s",
              restart: unknownEnum(9),
              parameters: new common.ServiceParameters({ portMappings: [new common.PortMapping({ containerPort: 1, protocol: unknownEnum(7) })] }),
            }),
          ],
        }),
        (w) => {
          w.tag(16, VARINT).int32(5);
        },
      ),
  },
];

const idFilter = (comparison: ApiPb.IdFilter["comparison"]): ApiPb.JobFilter =>
  new pb.JobFilter({ jobFilter: { case: "idFilter", value: new pb.IdFilter({ comparison }) } });
const tagFilter = (tagName: string, comparison: ApiPb.TagFilter["comparison"]): ApiPb.JobFilter =>
  new pb.JobFilter({ jobFilter: { case: "tagFilter", value: new pb.TagFilter({ tagName, comparison }) } });
const dateFilter = (comparison: ApiPb.DateFilter["comparison"]): ApiPb.JobFilter =>
  new pb.JobFilter({ jobFilter: { case: "dateFilter", value: new pb.DateFilter({ comparison }) } });
const search = (...filters: ApiPb.JobFilter[]) => (): Uint8Array => new pb.JobSearchRequest({ jobFilter: filters }).toBinary();

/** 2026-01-01T00:00:00Z */
const JAN_1 = 1_767_225_600n;

export const SEARCH_CASES: readonly SearchCase[] = [
  { name: "no filters", type: "norsk.api.manager.JobSearchRequest", query: "", binary: search() },
  { name: "id equals", type: "norsk.api.manager.JobSearchRequest", query: "id=j-1", binary: search(idFilter({ case: "eq", value: "j-1" })) },
  {
    name: "id not, id regex",
    type: "norsk.api.manager.JobSearchRequest",
    query: "idNot=j-1&idMatch=%5Ej-",
    binary: search(idFilter({ case: "neq", value: "j-1" }), idFilter({ case: "re", value: "^j-" })),
  },
  {
    name: "tags: equals, not, regex, exists",
    type: "norsk.api.manager.JobSearchRequest",
    note: "The tag name is everything before the first colon; the value may contain colons.",
    query: "tag=env:prod&tagNot=team:ops&tagMatch=region:%5Eeu-&hasTag=owner",
    binary: search(
      tagFilter("env", { case: "eq", value: "prod" }),
      tagFilter("team", { case: "neq", value: "ops" }),
      tagFilter("region", { case: "re", value: "^eu-" }),
      tagFilter("owner", { case: "exists", value: true }),
    ),
  },
  {
    name: "a tag value that holds colons",
    type: "norsk.api.manager.JobSearchRequest",
    note: "Only the first colon separates name from value.",
    query: "tag=url:http://a:8080/x",
    binary: search(tagFilter("url", { case: "eq", value: "http://a:8080/x" })),
  },
  {
    name: "start time comparisons",
    type: "norsk.api.manager.JobSearchRequest",
    query:
      "startAt=2026-01-01T00:00:00Z&startBefore=2026-02-01T00:00:00Z&startAtOrBefore=2026-03-01T00:00:00Z&startAfter=2025-01-01T00:00:00Z&startAtOrAfter=2025-02-01T00:00:00Z",
    binary: search(
      dateFilter({ case: "eq", value: time(JAN_1) }),
      dateFilter({ case: "lt", value: time(1_769_904_000n) }),
      dateFilter({ case: "lte", value: time(1_772_323_200n) }),
      dateFilter({ case: "gt", value: time(1_735_689_600n) }),
      dateFilter({ case: "gte", value: time(1_738_368_000n) }),
    ),
  },
  {
    name: "start time window",
    type: "norsk.api.manager.JobSearchRequest",
    query: "startWithin=2026-01-01T00:00:00Z/2026-01-31T23:59:59.5Z",
    binary: search(
      dateFilter({ case: "within", value: new pb.DateFilter_Within({ startDate: time(JAN_1), endDate: time(1_769_903_999n, 500_000_000) }) }),
    ),
  },
  {
    name: "a start time with an offset and nanoseconds is read as the same instant in UTC",
    type: "norsk.api.manager.JobSearchRequest",
    query: "startBefore=2026-01-01T01:30:00.000000001%2B01:30",
    binary: search(dateFilter({ case: "lt", value: time(JAN_1, 1) })),
  },
];
