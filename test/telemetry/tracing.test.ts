// Traces for real: the gateway as main.ts starts it, with --otlp-endpoint pointing at a small
// OTLP/HTTP receiver on loopback (JSON encoding, as the exporter sends it), in front of a stub
// Manager that records the metadata each call arrived with.
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stubManager } from "../helpers/stub-manager.js";
import type { StubManager } from "../helpers/stub-manager.js";
import { startLoggedGateway } from "./log-capture.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";

interface OtlpValue { stringValue?: string; intValue?: string | number }
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: OtlpValue }[];
}
interface OtlpRequest { resourceSpans: { resource: { attributes: { key: string; value: OtlpValue }[] }; scopeSpans: { spans: OtlpSpan[] }[] }[] }

/** An OTLP/HTTP receiver: every span POSTed to /v1/traces, and the content types it came with. */
async function startReceiver(): Promise<{ url: string; spans: OtlpSpan[]; services: string[]; contentTypes: string[]; server: Server }> {
  const spans: OtlpSpan[] = [];
  const services: string[] = [];
  const contentTypes: string[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      contentTypes.push(`${request.method ?? ""} ${request.url ?? ""} ${request.headers["content-type"] ?? ""}`);
      const parsed = JSON.parse(body) as OtlpRequest;
      for (const resourceSpans of parsed.resourceSpans) {
        services.push(...resourceSpans.resource.attributes.filter((a) => a.key === "service.name").map((a) => a.value.stringValue ?? ""));
        for (const scope of resourceSpans.scopeSpans) spans.push(...scope.spans);
      }
      response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`, spans, services, contentTypes, server };
}

function attribute(span: OtlpSpan | undefined, key: string): string | number | undefined {
  const value = span?.attributes.find((a) => a.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
}

let receiver: Awaited<ReturnType<typeof startReceiver>>;
let manager: StubManager;

beforeAll(async () => {
  receiver = await startReceiver();
  manager = await stubManager({ updateJob: () => ({ hash: 7n }) });
});

afterAll(async () => {
  manager.close();
  await new Promise((resolve) => receiver.server.close(resolve));
});

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT = "b7ad6b7169203331";
const OTHER_TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

describe("traces (--otlp-endpoint)", () => {
  it("exports a PUT as a server span and its UpdateJob as a child client span, and sends the Manager the client span's context", async () => {
    const logged = await startLoggedGateway(["--manager", manager.address, "--otlp-endpoint", receiver.url]);
    const response = await fetch(`${logged.url}/v1/jobs/trace-1`, {
      method: "PUT",
      headers: { "content-type": "application/json", traceparent: `00-${TRACE_ID}-${PARENT}-01`, tracestate: "vendor=abc", "x-request-id": "traced-1" },
      body: JSON.stringify({ jobId: "trace-1", startDateTime: "2026-12-24T18:00:00Z" }),
    });
    expect(response.status).toBe(200);
    await response.text();
    await expect.poll(() => logged.access().length).toBe(1);
    // Closing the gateway exports what is pending.
    await logged.close();

    const spans = receiver.spans.filter((span) => span.traceId === TRACE_ID);
    expect(spans).toHaveLength(2);
    const server = spans.find((span) => span.kind === 2);
    const client = spans.find((span) => span.kind === 3);
    expect(server).toMatchObject({ name: "PUT /v1/jobs/:jobId", parentSpanId: PARENT });
    expect(attribute(server, "http.route")).toBe("/v1/jobs/:jobId");
    expect(attribute(server, "http.request.method")).toBe("PUT");
    expect(attribute(server, "http.response.status_code")).toBe(200);
    // No authentication configured: no end user.
    expect(attribute(server, "enduser.id")).toBeUndefined();
    expect(client).toMatchObject({ name: "norsk.api.manager.Manager/UpdateJob", parentSpanId: server?.spanId });
    expect(attribute(client, "rpc.system")).toBe("grpc");
    expect(attribute(client, "rpc.method")).toBe("UpdateJob");
    expect(attribute(client, "rpc.grpc.status_code")).toBe(0);
    expect(attribute(client, "rpc.grpc.status_name")).toBe("OK");
    expect(receiver.services).toContain("norsk-manager-gateway");
    expect(receiver.contentTypes[0]).toBe("POST /v1/traces application/json");

    // The Manager's parent is the client span, and the vendor's tracestate goes along.
    const update = manager.calls.find((call) => call.method === "UpdateJob");
    expect(update?.metadata.get("traceparent")).toBe(`00-${TRACE_ID}-${client?.spanId ?? ""}-01`);
    expect(update?.metadata.get("tracestate")).toBe("vendor=abc");
    // The access line names the trace.
    expect(logged.access()[0]).toMatchObject({ requestId: "traced-1", traceId: TRACE_ID, route: "/v1/jobs/:jobId", status: 200 });
  });

  it("starts a new trace for a request without traceparent, and marks a failed call", async () => {
    receiver.spans.length = 0;
    const logged = await startLoggedGateway(["--manager", manager.address, "--otlp-endpoint", receiver.url]);
    // JobSearch is not implemented by the stub: UNIMPLEMENTED, answered 501.
    const response = await fetch(`${logged.url}/v1/jobs/trace-2`, { headers: { "x-request-id": "traced-2" } });
    expect(response.status).toBe(501);
    await response.text();
    await expect.poll(() => logged.access().length).toBe(1);
    await logged.close();
    const server = receiver.spans.find((span) => span.kind === 2 && span.name === "GET /v1/jobs/:jobId");
    expect(server?.parentSpanId ?? "").toBe("");
    const client = receiver.spans.find((span) => span.kind === 3 && span.traceId === server?.traceId);
    expect(client).toMatchObject({ name: "norsk.api.manager.Manager/JobSearch", parentSpanId: server?.spanId });
    expect(attribute(client, "rpc.grpc.status_name")).toBe("UNIMPLEMENTED");
    expect(attribute(server, "http.response.status_code")).toBe(501);
    expect(logged.access()[0]?.traceId).toBe(server?.traceId);
  });

  it("names the authenticated principal on the server span as enduser.id", async () => {
    const keys = await apiKeysFile([{ name: "ci-deployer", key: "k-traced-0c8e", scopes: ["jobs:write"] }]);
    const logged = await startLoggedGateway(["--manager", manager.address, "--otlp-endpoint", receiver.url, "--api-keys", keys.file]);
    try {
      const response = await fetch(`${logged.url}/v1/jobs/trace-3`, {
        method: "PUT",
        headers: { "content-type": "application/json", "x-api-key": "k-traced-0c8e", traceparent: `00-${OTHER_TRACE_ID}-${PARENT}-01` },
        body: JSON.stringify({ jobId: "trace-3", startDateTime: "2026-12-24T18:00:00Z" }),
      });
      expect(response.status).toBe(200);
      await response.text();
      await expect.poll(() => logged.access().length).toBe(1);
    } finally {
      await logged.close();
      await keys.remove();
    }
    const server = receiver.spans.find((span) => span.kind === 2 && span.traceId === OTHER_TRACE_ID);
    expect(attribute(server, "enduser.id")).toBe("ci-deployer");
  });
});
