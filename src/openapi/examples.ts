// The examples of the OpenAPI document, by operationId. They tell one story that Swagger UI's
// "Try it out" can replay, unchanged, against a fresh `npm start` (embedded Manager), in this
// order: createJob, jobById, jobSearch, patchJob, updateJob, startJob, listJobInstances,
// stopJob, completeJob, deleteJob. Each request gets a 2xx, and each response example is the
// answer the gateway gives at that step, hashes included (the Manager's hash depends only on
// the job's content). test/openapi/examples.test.ts replays the story and compares.
//
// Parameters take their examples from the route schemas (jobId "encoder-1", the search
// filters, If-Match "*"); Swagger UI pre-fills every one of them, so the search filters are
// chosen to find this job at every step. Problem examples are generated (see finish.ts).

export interface OperationExamples {
  /** The request body, for every media type the operation accepts but those of requestByMediaType. */
  readonly request?: unknown;
  /** The request body of a media type that takes another form (a JSON Patch beside a merge patch). */
  readonly requestByMediaType?: Readonly<Record<string, unknown>>;
  /** Response bodies by status, for application/json. */
  readonly responses?: Readonly<Partial<Record<number, unknown>>>;
  /** Response bodies by media type, then status, for the other media types. */
  readonly byMediaType?: Readonly<Record<string, Readonly<Partial<Record<number, unknown>>>>>;
  /** The detail of an error's example problem, by status, where the catalogue's sample (errors.ts) names another kind of resource. */
  readonly problemDetails?: Readonly<Partial<Record<number, string>>>;
}

const CREATE = {
  jobId: "encoder-1",
  startDateTime: "2026-12-24T18:00:00Z",
  description: "Christmas Eve stream",
  tags: { env: "prod" },
  services: [{ name: "norsk", docker: { containerUrl: "docker.io/norskvideo/norsk:latest" }, restart: "on_failure" }],
};

/** What the gateway emits for a job: every field the SDK interface requires, zero values included. */
const EMITTED_DEFAULTS = {
  norskMediaVersion: "recommended",
  state: "pre",
  shape: "",
  architecture: "",
  subnet: "",
  availabilityDomain: "",
  cloud: "aws",
};

const SERVICE = {
  name: "norsk",
  docker: { containerUrl: "docker.io/norskvideo/norsk:latest" },
  restart: "on_failure",
  dependsOn: [],
  configuration: "",
  restartCount: 0,
  restartPeriod: 0,
  command: "",
};

const CREATED = {
  jobId: "encoder-1",
  description: "Christmas Eve stream",
  tags: { env: "prod" },
  startDateTime: "2026-12-24T18:00:00Z",
  currentHash: "-3481990684367738963",
  services: [SERVICE],
  ...EMITTED_DEFAULTS,
};

const PATCH = { description: "Christmas Eve stream (HD)", tags: { tier: "gold" } };

/** PATCH as a JSON Patch: the same change, so the same answer. */
const JSON_PATCH = [
  { op: "replace", path: "/description", value: "Christmas Eve stream (HD)" },
  { op: "add", path: "/tags/tier", value: "gold" },
];

const PATCHED = { ...CREATED, description: "Christmas Eve stream (HD)", tags: { env: "prod", tier: "gold" }, currentHash: "-8480880975918333584" };

const REPLACE = {
  jobId: "encoder-1",
  startDateTime: "2026-12-24T18:00:00Z",
  description: "Christmas Eve stream (4K)",
  tags: { env: "prod" },
  launchConfigJson: "",
};

const REPLACED = {
  jobId: "encoder-1",
  description: "Christmas Eve stream (4K)",
  tags: { env: "prod" },
  startDateTime: "2026-12-24T18:00:00Z",
  currentHash: "-908541661411711934",
  services: [],
  ...EMITTED_DEFAULTS,
  launchConfigJson: "",
};

const INSTANCE = { jobKey: { jobId: "encoder-1", role: "primary" }, nodeId: "node-1" };

export const EXAMPLES: Readonly<Record<string, OperationExamples>> = {
  createJob: { request: CREATE, responses: { 201: CREATED, 200: CREATED } },
  jobById: { responses: { 200: CREATED } },
  // NDJSON is documented as the same list in another encoding (schemas/search.ts), so its example is the list.
  jobSearch: { responses: { 200: { jobs: [CREATED] } }, byMediaType: { "application/x-ndjson": { 200: { jobs: [CREATED] } } } },
  patchJob: { request: PATCH, requestByMediaType: { "application/json-patch+json": JSON_PATCH }, responses: { 200: PATCHED } },
  // 201: the same body put with If-None-Match: * where no job is; the hash depends only on the content.
  updateJob: { request: REPLACE, responses: { 200: REPLACED, 201: REPLACED } },
  startJob: { request: { role: "primary", nodeId: "node-1" }, responses: { 201: INSTANCE } },
  listJobInstances: { responses: { 200: { instances: [INSTANCE] } } },
  stopJob: {},
  completeJob: {},
  deleteJob: {},
  // Streams: one line each (Swagger UI cannot show a stream that never ends; use curl -N).
  eventStream: { byMediaType: { "application/x-ndjson": { 200: { event: "jobDeleted", data: { jobId: "encoder-1" } } } } },
  createStatusChannel: {
    byMediaType: {
      "application/x-ndjson": { 200: { event: "logEvent", data: { level: "info", timestamp: "1766599200000", msg: "job encoder-1 created", metadata: "" } } },
    },
  },
  nodeById: { problemDetails: { 404: 'node "rack-7" is not in the Manager\'s picture' } },
  getLiveness: { responses: { 200: { status: "ok" } } },
  getReadiness: { responses: { 200: { status: "ready" } } },
};

/** The order in which the story replays; operations not listed come after, deletes last. */
export const STORY = [
  "createJob",
  "jobById",
  "jobSearch",
  "patchJob",
  "updateJob",
  "startJob",
  "listJobInstances",
  "stopJob",
  "updatePhysicalNode",
  "nodeById",
  "nodes",
  "completeJob",
  "deleteJob",
] as const;
