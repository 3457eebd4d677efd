// What the in-process benchmarks (bench:json, bench:steps) share: the body of a full job, about
// 2 KB (six services, nanosecond start time), and a timer that keeps the best of many batches,
// so that other work on the machine shows as little as it can.

const service = (i: number): Record<string, unknown> => ({
  name: `service-${i}`,
  docker: { containerUrl: "docker.io/norskvideo/norsk:latest" },
  restart: "on_failure",
  dependsOn: ["norsk"],
  configuration: '{"profile": "hd"}',
  restartCount: 3,
  restartPeriod: 60,
  command: "run --fast",
  parameters: { cpuSet: [0, 1, 2, 3], portMappings: [{ containerPort: 8080, ephemeral: {} }] },
});

/** A full job as a client sends it. */
export const JOB_BODY = {
  jobId: "encoder-1",
  description: "Christmas Eve stream",
  tags: { env: "prod", tier: "gold", region: "eu-west-1" },
  startDateTime: "2026-12-24T18:00:00.123456789Z",
  services: [0, 1, 2, 3, 4, 5].map(service),
  norskMediaVersion: "recommended",
};

/** The same job as the bytes of a request body. */
export const JOB_BYTES = Buffer.from(JSON.stringify(JOB_BODY));

/** µs per call of `run`: the best of `batches` batches of `perBatch` calls. */
export function bestMicroseconds(run: () => unknown, batches: number, perBatch: number): number {
  let best = Infinity;
  for (let batch = 0; batch < batches; batch++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < perBatch; i++) run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / perBatch / 1_000);
  }
  return best;
}
