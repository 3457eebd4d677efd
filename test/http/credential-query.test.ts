// Credentials in a query string (src/http/credential-query.ts): each parameter of
// CREDENTIAL_PARAMETERS has its value replaced, whatever the case or percent-encoding of its
// name, and nothing else of the URL changes.
import { describe, expect, it } from "vitest";
import { CREDENTIAL_PARAMETERS, REDACTED, carriesCredential, redactedUrl } from "../../src/http/credential-query.js";

describe("redactedUrl", () => {
  it.each([
    ["/v1/jobs?access_token=abc.def.ghi", `/v1/jobs?access_token=${REDACTED}`],
    ["/v1/jobs?limit=1&access_token=s3cr3t&tag=a", `/v1/jobs?limit=1&access_token=${REDACTED}&tag=a`],
    ["/v1/jobs?ACCESS_TOKEN=s3cr3t", `/v1/jobs?ACCESS_TOKEN=${REDACTED}`],
    ["/v1/jobs?access%5Ftoken=s3cr3t", `/v1/jobs?access%5Ftoken=${REDACTED}`],
    ["/v1/jobs?api_key=k1&apikey=k2&x-api-key=k3&key=k4", `/v1/jobs?api_key=${REDACTED}&apikey=${REDACTED}&x-api-key=${REDACTED}&key=${REDACTED}`],
    ["/v1/jobs?token=t&id_token=i&refresh_token=r&client_secret=c&password=p&secret=s&authorization=Bearer%20x", `/v1/jobs?token=${REDACTED}&id_token=${REDACTED}&refresh_token=${REDACTED}&client_secret=${REDACTED}&password=${REDACTED}&secret=${REDACTED}&authorization=${REDACTED}`],
    ["/v1/jobs?access_token", `/v1/jobs?access_token=${REDACTED}`],
    ["/v1/jobs?access_token=a&access_token=b", `/v1/jobs?access_token=${REDACTED}&access_token=${REDACTED}`],
  ])("%s is logged as %s", (url, logged) => {
    expect(redactedUrl(url)).toBe(logged);
    expect(carriesCredential(url)).toBe(true);
  });

  it.each([
    ["/v1/jobs"],
    ["/v1/jobs?"],
    ["/v1/jobs?pageToken=p1&limit=10"],
    ["/v1/jobs?tag=token&id=access_token"],
    ["/v1/jobs?tokens=1&my_access_token=2"],
    ["/v1/jobs?%E0%A4%A=1"],
  ])("leaves %s as it is: no parameter named for a credential", (url) => {
    expect(redactedUrl(url)).toBe(url);
    expect(carriesCredential(url)).toBe(false);
  });

  it("names every credential parameter in lower case, as they are compared", () => {
    for (const name of CREDENTIAL_PARAMETERS) expect(name).toBe(name.toLowerCase());
  });
});
