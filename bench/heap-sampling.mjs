// Preloaded into the gateway by `npm run bench:profile` (node --import): V8's sampling heap
// profiler, counting every sampled allocation, also those the next garbage collection frees, so
// that what one request allocates is seen and not only what survives it. The first SIGUSR2
// starts sampling, the second stops it and writes the profile to $BENCH_HEAP_PROFILE.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";

const file = process.env.BENCH_HEAP_PROFILE;
if (file !== undefined) {
  const session = new Session();
  session.connect();
  let sampling = false;
  process.on("SIGUSR2", () => {
    if (!sampling) {
      sampling = true;
      void session.post("HeapProfiler.startSampling", { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      return;
    }
    void session.post("HeapProfiler.stopSampling").then(({ profile }) => writeFileSync(file, JSON.stringify(profile)));
  });
}
