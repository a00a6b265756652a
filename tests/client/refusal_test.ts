/**
 * Refusals, DOM-free: the reason the editor reads for a refused answer
 * (the server's plain text, capped; never an HTML error page), and the edit
 * bar keeping a refusal in its status over the "N unpublished changes" it
 * would otherwise show.
 */
import assert from "node:assert/strict";
import { reasonText } from "../../client/refusal.ts";
import type { Field } from "../../client/model.ts";
import { barStatus } from "../../client/status.ts";

Deno.test("reasonText: the server's plain-text reason, trimmed and capped at 200 characters", () => {
  assert.equal(
    reasonText(413, "text/plain; charset=utf-8", " value too large \n"),
    "value too large",
  );
  assert.equal(reasonText(400, null, "bad field"), "bad field");
  assert.equal(reasonText(422, "text/plain", "x".repeat(5000)).length, 200);
});

Deno.test("reasonText: an HTML or JSON body, or none, shows as the status; no answer as unreachable", () => {
  const nginx = "<html><head><title>413 Request Entity Too Large</title>";
  assert.equal(reasonText(413, "text/html", nginx), "HTTP 413");
  assert.equal(reasonText(500, "application/json", '{"e":1}'), "HTTP 500");
  assert.equal(reasonText(502, "text/plain", "   "), "HTTP 502");
  assert.equal(reasonText(0, null, ""), "server unreachable");
});

Deno.test("barStatus: a refusal shows over drafts and clean, but a failed save, saving and offline win", () => {
  const clean = { dirty: 0, saving: false, removed: 0 };
  const why = "Not published: HTTP 413";
  // The field seen on a real site: 413 on publish, yet "2 unpublished".
  assert.deepEqual(barStatus(clean, true, 2, why), ["error", why]);
  assert.deepEqual(barStatus(clean, true, 0, why), ["error", why]);
  assert.deepEqual(barStatus({ ...clean, saving: true }, true, 2, why), [
    "saving",
    "Saving…",
  ]);
  assert.equal(barStatus(clean, false, 2, why)[0], "offline");
  assert.deepEqual(
    barStatus(
      {
        ...clean,
        dirty: 1,
        failed: { error: { status: 400, reason: "bad" } } as Field,
      },
      true,
      0,
      why,
    ),
    ["error", "Not saved: bad"],
  );
  // Gone (its toast went): back to the count.
  assert.deepEqual(barStatus(clean, true, 2), [
    "drafts",
    "2 unpublished changes",
  ]);
});
