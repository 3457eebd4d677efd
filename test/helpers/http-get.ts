// A GET read to its end with node's own HTTP client, which tells a body that ended properly
// from one that was cut off (a response whose connection closed mid-body): `complete`.
import { request as httpRequest } from "node:http";

export interface WholeResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly text: string;
  /** False when the connection closed before the body's end (a chunked body without its last chunk). */
  readonly complete: boolean;
}

export function getWhole(url: string, headers: Record<string, string> = {}): Promise<WholeResponse> {
  return new Promise((resolve, reject) => {
    httpRequest(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      // A cut body is an "aborted" error here; the answer is what arrived, marked incomplete.
      response.on("error", () => undefined);
      response.once("close", () => {
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          text: Buffer.concat(chunks).toString("utf8"),
          complete: response.complete,
        });
      });
    })
      .on("error", reject)
      .end();
  });
}

/** The lines of an NDJSON body, each parsed (a line that is not JSON fails the test). */
export function ndjsonLines(text: string): unknown[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as unknown);
}
