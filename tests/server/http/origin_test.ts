import assert from "node:assert/strict";
import {
  checkOrigin,
  isAllowedHost,
  isCrossSite,
} from "../../../server/http/origin.ts";
import { HttpError } from "../../../server/http/pipeline.ts";

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

Deno.test("isCrossSite: with publicOrigin, Origin decides even when the browser says same-origin", () => {
  const own = "https://www.example.com";
  const cases: [Record<string, string>, boolean][] = [
    [{ Origin: own }, false],
    [{ Origin: own, "Sec-Fetch-Site": "same-origin" }, false],
    [{ Origin: own, "Sec-Fetch-Site": "cross-site" }, false],
    [
      { Origin: "http://evil.example:8000", "Sec-Fetch-Site": "same-origin" },
      true,
    ],
    [{ Origin: "https://example.com" }, true], // req.url's origin is not ours
    [{ Origin: "null", "Sec-Fetch-Site": "same-origin" }, true],
    [{ "Sec-Fetch-Site": "same-origin" }, false],
    [{ "Sec-Fetch-Site": "none" }, false],
    [{ "Sec-Fetch-Site": "same-site" }, true],
    [{ "Sec-Fetch-Site": "cross-site" }, true],
    [{}, false],
  ];
  for (const [headers, cross] of cases) {
    const label = JSON.stringify(headers);
    assert.equal(isCrossSite(req(headers), [], own), cross, label);
    assert.equal(
      isCrossSite(req(headers), [], [own, "https://b.example"]),
      cross,
      label,
    );
  }
  assert.equal(
    isCrossSite(
      req({ Origin: "https://cdn.example" }),
      ["https://cdn.example"],
      own,
    ),
    false,
  );
});

Deno.test("isCrossSite: forwarded headers are never trusted", () => {
  const headers = {
    Origin: "https://public.example",
    "X-Forwarded-Host": "public.example",
    "X-Forwarded-Proto": "https",
    Forwarded: "host=public.example;proto=https",
  };
  assert.equal(
    isCrossSite(req(headers, "http://10.0.0.5:8000/api/cms/save")),
    true,
  );
});

Deno.test("isAllowedHost and checkOrigin: Host allowlist first (421), then origin (403)", () => {
  const hosts = ["example.com", "localhost:8000"];
  assert.equal(isAllowedHost(req({})), true);
  assert.equal(isAllowedHost(req({}), hosts), true); // URL host
  assert.equal(isAllowedHost(req({ Host: "EXAMPLE.com" }), hosts), true);
  for (
    const host of [
      "evil.example",
      "example.com:8443",
      "localhost",
      "localhost:8001",
      "",
    ]
  ) {
    assert.equal(isAllowedHost(req({ Host: host }), hosts), false, host);
  }
  const status = (headers: Record<string, string>) => {
    try {
      checkOrigin(req(headers), { allowedHosts: hosts });
      return 0;
    } catch (err) {
      assert.ok(err instanceof HttpError);
      return err.status;
    }
  };
  assert.equal(
    status({ Host: "evil.example", Origin: "https://example.com" }),
    421,
  );
  assert.equal(status({ Origin: "https://evil.example" }), 403);
  assert.equal(status({ Origin: "https://example.com" }), 0);
});
