import assert from "node:assert/strict";
import { isCrossSite } from "../server/origin.ts";

const URL_ = "https://example.com/api/cms/save";

function req(headers: Record<string, string>, url = URL_): Request {
  return new Request(url, { method: "PATCH", headers });
}

Deno.test("isCrossSite: Sec-Fetch-Site same-origin and none pass, whatever Origin says", () => {
  assert.equal(isCrossSite(req({ "Sec-Fetch-Site": "same-origin" })), false);
  assert.equal(isCrossSite(req({ "Sec-Fetch-Site": "none" })), false);
  assert.equal(
    isCrossSite(
      req({ "Sec-Fetch-Site": "same-origin", Origin: "https://evil.example" }),
    ),
    false,
  );
});

Deno.test("isCrossSite: cross-site and same-site need a matching Origin", () => {
  for (const site of ["cross-site", "same-site", "bogus"]) {
    assert.equal(isCrossSite(req({ "Sec-Fetch-Site": site })), true, site);
    assert.equal(
      isCrossSite(
        req({ "Sec-Fetch-Site": site, Origin: "https://evil.example" }),
      ),
      true,
      site,
    );
    assert.equal(
      isCrossSite(
        req({ "Sec-Fetch-Site": site, Origin: "https://example.com" }),
      ),
      false,
      site,
    );
  }
});

Deno.test("isCrossSite: Origin alone must be the request's own origin", () => {
  assert.equal(isCrossSite(req({ Origin: "https://example.com" })), false);
  assert.equal(isCrossSite(req({ Origin: "https://evil.example" })), true);
  assert.equal(isCrossSite(req({ Origin: "null" })), true);
  assert.equal(isCrossSite(req({ Origin: "http://example.com" })), true); // scheme
  assert.equal(isCrossSite(req({ Origin: "https://example.com:8443" })), true); // port
  assert.equal(isCrossSite(req({ Origin: "https://sub.example.com" })), true);
});

Deno.test("isCrossSite: allowedOrigins admit a proxy's public origin", () => {
  const internal = "http://10.0.0.5:8000/api/cms/save";
  const headers = {
    "Sec-Fetch-Site": "same-site",
    Origin: "https://www.example.com",
  };
  assert.equal(isCrossSite(req(headers, internal)), true);
  assert.equal(
    isCrossSite(req(headers, internal), ["https://www.example.com"]),
    false,
  );
  assert.equal(
    isCrossSite(req(headers, internal), ["https://other.example"]),
    true,
  );
});

Deno.test("isCrossSite: no Origin and no Sec-Fetch-Site (non-browser client) passes", () => {
  assert.equal(isCrossSite(req({})), false);
});
