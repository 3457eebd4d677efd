// Issue 9, row 10: one rule for the ids that paths address (src/lexical/ids.ts). An id that a path
// could not hold is refused where it would be created, with a 400 naming it, and nothing is
// written; every id the rule allows, the longest and oddest included, is reached by its path
// with a real HTTP client (fetch, which resolves dot segments as browsers do).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { Code } from "norsk-manager-contract/grpc/index.js";
import { ID_PATTERN_MESSAGE } from "norsk-manager-contract/lexical/ids.js";
import { START } from "../helpers/gateway.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";

let gw: ListeningGateway;

beforeAll(async () => {
  gw = await startListeningGateway();
});
afterAll(async () => {
  await gw.close();
});

const TOO_LONG = "must NOT have more than 256 characters";

/**
 * 256 characters (code points), the most the rule allows, of the kinds a path treats specially
 * (/ ? # % + & = ; and an already-encoded %2F), dots, quotes, a backslash, spaces (U+0020, U+00A0,
 * U+2028), and astral characters, each 12 bytes percent-encoded: about 2 630 bytes in a path,
 * beyond fastify's maxParamLength of 2048 (which counts the decoded value: 468 UTF-16 units).
 */
function oddId(prefix: string): string {
  const odd = `${prefix}/a?b#c%d+e&f=g;h,%2F i..j'k"l\\m~n\u00a0o\u2028p\u00fcq\ufffd.`;
  return odd + "\u{1F600}".repeat(256 - Array.from(odd).length);
}

async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const json: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
  const init: RequestInit = { method, headers: { "x-request-id": "r-1", ...json, ...headers } };
  if (body !== undefined) init.body = JSON.stringify(body);
  const res = await fetch(`${gw.url}${path}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
}

describe("an id no path could address", () => {
  const refused = (instance: string, detail: string, where: { pointer: string } | { parameter: string }, message: string) => ({
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail,
    instance,
    code: "INVALID_ARGUMENT",
    requestId: "r-1",
    errors: [{ ...where, message }],
  });
  const body = "the request body is invalid";

  it.each<[string, string, string, unknown, ReturnType<typeof refused>]>([
    ["a jobId of 257 characters", "POST", "/v1/jobs", { jobId: "j".repeat(257), startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, TOO_LONG)],
    ["a jobId of 102 400 characters", "POST", "/v1/jobs", { jobId: "j".repeat(102_400), startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, TOO_LONG)],
    ['the jobId ".."', "POST", "/v1/jobs", { jobId: "..", startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, ID_PATTERN_MESSAGE)],
    ['the jobId "."', "POST", "/v1/jobs", { jobId: ".", startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, ID_PATTERN_MESSAGE)],
    ["a line feed in a jobId", "POST", "/v1/jobs", { jobId: "a\nb", startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, ID_PATTERN_MESSAGE)],
    ["a C1 control in a jobId", "POST", "/v1/jobs", { jobId: "a\u0085", startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, ID_PATTERN_MESSAGE)],
    ["a jobId beginning with U+FEFF", "POST", "/v1/jobs", { jobId: "\ufeffj", startDateTime: START }, refused("/v1/jobs", body, { pointer: "/jobId" }, ID_PATTERN_MESSAGE)],
    ["an AWS nodeId of 257 characters", "POST", "/v1/nodes/aws", { nodeId: "n".repeat(257) }, refused("/v1/nodes/aws", body, { pointer: "/nodeId" }, TOO_LONG)],
    ['the OCI nodeId ".."', "POST", "/v1/nodes/oci", { nodeId: ".." }, refused("/v1/nodes/oci", body, { pointer: "/nodeId" }, ID_PATTERN_MESSAGE)],
    [
      "a physical node id of 257 characters",
      "PUT",
      `/v1/physical-nodes/${"p".repeat(257)}`,
      {},
      refused(`/v1/physical-nodes/${"p".repeat(257)}`, "the path parameters are invalid", { parameter: "id" }, TOO_LONG),
    ],
    [
      "a tab in a physical node id",
      "PUT",
      "/v1/physical-nodes/p%09q",
      {},
      refused("/v1/physical-nodes/p%09q", "the path parameters are invalid", { parameter: "id" }, ID_PATTERN_MESSAGE),
    ],
  ])("%s is refused at creation with a 400 naming it, and nothing is written", async (_name, method, path, payload, problem) => {
    expect(await send(method, path, payload)).toMatchObject({ status: 400, body: problem });
    expect(await gw.jobs()).toEqual([]);
    const nodes: string[] = [];
    for await (const event of gw.connection.manager.eventStream({})) {
      if (event.event.case === "initialDataComplete") break;
      nodes.push(event.event.case ?? "");
    }
    expect(nodes).toEqual([]);
  });

  it("is refused as an instance's role or node, with a 400 naming it", async () => {
    expect((await send("POST", "/v1/jobs", { jobId: "i-1", startDateTime: START })).status).toBe(201);
    const role = await send("POST", "/v1/jobs/i-1/instances", { role: "..", nodeId: "n" });
    expect(role).toMatchObject({ status: 400, body: refused("/v1/jobs/i-1/instances", body, { pointer: "/role" }, ID_PATTERN_MESSAGE) });
    const node = await send("POST", "/v1/jobs/i-1/instances", { role: "r", nodeId: "n".repeat(257) });
    expect(node).toMatchObject({ status: 400, body: refused("/v1/jobs/i-1/instances", body, { pointer: "/nodeId" }, TOO_LONG) });
    const [job] = await gw.jobs();
    expect(job?.state).toBe(Job_JobState.PRE);
    await gw.connection.manager.deleteJob({ jobId: "i-1" });
  });
});

describe("the longest and oddest id the rule allows", () => {
  it("is reached by its path: a job read, replaced, patched, started, stopped, completed and deleted", async () => {
    const id = oddId("job");
    const path = `/v1/jobs/${encodeURIComponent(id)}`;
    expect(path.length).toBe("/v1/jobs/".length + 2640);
    const created = await send("POST", "/v1/jobs", { jobId: id, startDateTime: START, description: "one" });
    expect(created.status).toBe(201);
    expect(created.headers.get("location")).toBe(path);

    const read = await send("GET", path);
    expect([read.status, read.body]).toEqual([200, created.body]);
    const replaced = await send("PUT", path, { jobId: id, startDateTime: START, description: "two" }, { "if-match": read.headers.get("etag") ?? "" });
    expect([replaced.status, (replaced.body as { description: string }).description]).toEqual([200, "two"]);
    const patched = await send("PATCH", path, { description: "three" });
    expect([patched.status, (patched.body as { description: string }).description]).toEqual([200, "three"]);

    // An instance whose role and node are odd and as long as allowed, too: 7 926 bytes of path and query.
    const role = oddId("role");
    const nodeId = oddId("node");
    expect((await send("POST", `${path}/instances`, { role, nodeId })).status).toBe(201);
    expect(await send("GET", `${path}/instances`)).toMatchObject({ status: 200, body: { instances: [{ jobKey: { jobId: id, role }, nodeId }] } });
    const stopped = await send("DELETE", `${path}/instances/${encodeURIComponent(role)}?nodeId=${encodeURIComponent(nodeId)}`);
    expect(stopped.status).toBe(204);
    expect((await send("POST", `${path}/complete`)).status).toBe(204);

    expect((await send("DELETE", path)).status).toBe(204);
    expect((await send("GET", path)).status).toBe(404);
    expect(await gw.jobs()).toEqual([]);
  });

  it("is reached by its path: a cloud node and a physical node terminated", async () => {
    const cloud = oddId("aws");
    expect((await send("POST", "/v1/nodes/aws", { nodeId: cloud })).status).toBe(202);
    expect((await send("DELETE", `/v1/nodes/${encodeURIComponent(cloud)}`)).status).toBe(202);

    const physical = oddId("rack");
    const registered = await send("PUT", `/v1/physical-nodes/${encodeURIComponent(physical)}`, { daemonVersion: "1" });
    expect(registered).toMatchObject({ status: 200, body: { id: physical, daemonVersion: "1" } });
    expect((await send("DELETE", `/v1/nodes/${encodeURIComponent(physical)}`)).status).toBe(202);

    const gone = await gw.connection.manager.terminateNode({ nodeId: physical }).then(
      () => "still there",
      (error: unknown) => (error as { code?: number }).code,
    );
    expect(gone).toBe(Code.NOT_FOUND);
  });
});
