// Seeds a reference Manager's data directory with many jobs, straight into its SQLite store
// (the Manager must not have it open): each job as CreateJob would store it (canonical bytes
// with current_hash, a created history entry), in one transaction, so 100,000 jobs take a
// second or two rather than the minutes of 100,000 CreateJob calls.
import { create } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { Service_ServiceRestart } from "norsk-manager-contract/gen/norsk/api/common_pb.js";
import { JobSchema } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { hashOwnedJob, withCurrentHash } from "norsk-reference-manager/hash.js";
import { createdEntry } from "norsk-reference-manager/history.js";
import { Store } from "norsk-reference-manager/store.js";

/** The id of the i-th seeded job: zero-padded, so that id order is index order. */
export function seededJobId(i: number): string {
  return `job-${String(i).padStart(7, "0")}`;
}

/**
 * Writes `count` jobs into `<dataDir>/manager.sqlite`: ids seededJobId(0 .. count-1), tag
 * env:prod, one service each (the Manager of bench:list and the large-list test).
 */
export function seedJobs(dataDir: string, count: number): void {
  const store = new Store(dataDir);
  const entry = createdEntry(timestampFromDate(new Date("2026-12-01T00:00:00Z")));
  try {
    store.transaction(() => {
      for (let i = 0; i < count; i++) {
        const id = seededJobId(i);
        const job = create(JobSchema, {
          jobId: { jobId: id },
          description: `seeded job ${i}`,
          tags: { env: "prod", shard: String(i % 16) },
          startDateTime: timestampFromDate(new Date(Date.UTC(2026, 11, 24, 18, 0, 0) + i * 1000)),
          services: [{ name: "norsk", container: { case: "docker", value: { containerUrl: { url: "docker.io/norskvideo/norsk:latest" } } }, restart: Service_ServiceRestart.ON_FAILURE }],
        });
        const { hash, canonical } = hashOwnedJob(job);
        store.insertJob(id, hash, withCurrentHash(canonical, hash));
        store.appendHistory(id, entry);
      }
    });
  } finally {
    store.close();
  }
}
