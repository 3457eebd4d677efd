// Safe updates against the gateway: jobs.update reads, applies the change, and writes with
// If-Match; an update that meets a concurrent writer gets a 412, reads again, applies the change
// to what that writer left and succeeds, so both changes are kept; one that keeps meeting
// writers gives up after maxAttempts with a PreconditionFailedError; any other failure is
// thrown at once, the change applied once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import type { ListeningGateway } from "../../../../test/helpers/listening-gateway.js";
import { PreconditionFailedError, ProblemError, createClient } from "../../src/index.js";
import type { Client, Job } from "../../src/index.js";

let gateway: ListeningGateway;
let client: Client;
/** Another writer, through the same gateway. */
let other: Client;

beforeAll(async () => {
  gateway = await startListeningGateway();
  client = createClient({ baseUrl: gateway.url, retryDelayMs: 10 });
  other = createClient({ baseUrl: gateway.url });
});

afterAll(async () => {
  await gateway.close();
});

async function created(jobId: string): Promise<Job> {
  return client.jobs.create({ jobId, startDateTime: "2026-12-24T18:00:00Z", description: "original", tags: { env: "prod" } });
}

describe("jobs.update", () => {
  it("writes the change with If-Match on the version it was applied to", async () => {
    const before = await created("update-1");
    const after = await client.jobs.update("update-1", (job) => ({ ...job, description: "changed" }));
    expect(after.description).toBe("changed");
    expect(after.currentHash).not.toBe(before.currentHash);
  });

  it("meets a concurrent writer: a 412, then the change applied again to what the writer left, both kept", async () => {
    await created("update-2");
    const seen: (string | undefined)[] = [];
    const after = await client.jobs.update("update-2", async (job) => {
      seen.push(job.tags.writer);
      // The other writer comes between this read and this write, once.
      if (seen.length === 1) await other.jobs.patch("update-2", { tags: { writer: "other" } });
      return { ...job, description: "mine" };
    });
    expect(seen).toEqual([undefined, "other"]);
    expect(after).toMatchObject({ description: "mine", tags: { env: "prod", writer: "other" } });
    expect(await client.jobs.get("update-2")).toMatchObject({ description: "mine", tags: { writer: "other" } });
  });

  it("gives up after maxAttempts with a PreconditionFailedError, having written nothing of its own", async () => {
    await created("update-3");
    let applied = 0;
    const error = await client.jobs
      .update(
        "update-3",
        async (job) => {
          applied += 1;
          await other.jobs.patch("update-3", { tags: { round: String(applied) } });
          return { ...job, description: "never written" };
        },
        { maxAttempts: 3 },
      )
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PreconditionFailedError);
    expect(applied).toBe(3);
    expect(await client.jobs.get("update-3")).toMatchObject({ description: "original", tags: { round: "3" } });
  });

  it("throws any other failure at once, the change applied once", async () => {
    await created("update-4");
    let applied = 0;
    const error = await client.jobs
      .update("update-4", (job) => {
        applied += 1;
        return { ...job, tags: { "gateway.norsk/deleting": "not mine to set" } };
      })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ProblemError);
    expect((error as ProblemError).status).toBe(400);
    expect(applied).toBe(1);
  });
});
