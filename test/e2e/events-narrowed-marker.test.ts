// Every narrowed GET /v1/events keeps initialDataComplete, whichever filter narrows it (type=,
// jobId=, tag=, combined), as Server-Sent Events through a real SSE client and as NDJSON: a
// narrowed client still sees where its picture ends and the live events begin. Against the
// gateway listening on port 0 in front of a reference Manager in this process.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventSource } from "eventsource";
import { JSON_HEADERS, START } from "../helpers/gateway.js";
import { eventually, startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { EVENT_DATA } from "../../schemas/events.js";

/** The filters, each with the job whose live change it lets through and the picture's events of that job. */
const NARROWED = [
  { query: "type=jobUpdated", picture: [] },
  { query: "type=jobUpdated,jobDeleted&type=jobInfo", picture: [] },
  { query: "jobId=marked-a", picture: ["jobPending marked-a"] },
  { query: "tag=team:a", picture: ["jobPending marked-a"] },
  { query: "type=jobPending,jobUpdated&jobId=marked-a&tag=team:a", picture: ["jobPending marked-a"] },
].map(({ query, picture }) => ({ query: `pendingWindowS=3600&${query}`, picture }));

/** What a narrowed client saw: `name jobId` per event, or `name` for one about no job. */
function described(type: string, data: string): string {
  const jobId = /"jobId":"([^"]+)"/.exec(data)?.[1];
  return jobId === undefined ? type : `${type} ${jobId}`;
}

let gw: ListeningGateway;

async function change(method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`${gw.url}${path}`, { method, headers: JSON_HEADERS, body: JSON.stringify(body) });
  expect(res.status, await res.text()).toBeLessThan(300);
}

beforeAll(async () => {
  gw = await startListeningGateway();
  // Pending within the window asked: both jobs are in every client's picture, if its filter lets them through.
  await change("POST", "/v1/jobs", { jobId: "marked-a", startDateTime: START, tags: { team: "a" } });
  await change("POST", "/v1/jobs", { jobId: "marked-b", startDateTime: START, tags: { team: "b" } });
});

afterAll(async () => {
  await gw.close();
});

describe("a narrowed event stream keeps initialDataComplete", () => {
  it("as Server-Sent Events: the picture's events the filter lets through, the marker, then the live change", async () => {
    const sources = NARROWED.map(({ query }) => {
      const source = new EventSource(`${gw.url}/v1/events?${query}`);
      const seen: string[] = [];
      for (const type of Object.keys(EVENT_DATA)) source.addEventListener(type, (event) => seen.push(described(type, String(event.data))));
      return { source, seen };
    });
    try {
      await eventually(() => sources.every(({ seen }) => seen.includes("initialDataComplete")), "initialDataComplete on every narrowed stream");
      await change("PATCH", "/v1/jobs/marked-a", { tags: { team: "a", stage: "live" } });
      await eventually(() => sources.every(({ seen }) => seen.includes("jobUpdated marked-a")), "the live change on every narrowed stream");
      NARROWED.forEach(({ picture }, index) => {
        expect(sources[index]?.seen, NARROWED[index]?.query).toEqual([...picture, "initialDataComplete", "jobUpdated marked-a"]);
      });
    } finally {
      for (const { source } of sources) source.close();
    }
  });

  it("as NDJSON: the marker ends the picture on every narrowed stream", async () => {
    for (const { query, picture } of NARROWED) {
      const text = await ndjsonUntilMarker(`${gw.url}/v1/events?${query}`);
      const events = text.trimEnd().split("\n").map((line) => JSON.parse(line) as { event: string; data: unknown });
      expect(events.map(({ event, data }) => described(event, JSON.stringify(data))), query).toEqual([...picture, "initialDataComplete"]);
    }
  });
});

/** The NDJSON stream at `url` up to its initialDataComplete line; then the connection is closed. */
function ndjsonUntilMarker(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { headers: { accept: "application/x-ndjson" } }, (response) => {
      expect(response.statusCode).toBe(200);
      let text = "";
      response.on("data", (chunk: Buffer) => {
        text += chunk.toString("utf8");
        if (!/"initialDataComplete".*\n/.test(text)) return;
        request.destroy();
        resolve(text);
      });
      response.on("error", () => undefined);
      response.once("end", () => {
        reject(new Error(`the stream ended without initialDataComplete: ${text}`));
      });
    });
    request.on("error", () => undefined).end();
  });
}
