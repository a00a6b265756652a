/**
 * The sanitizer is three modules: the policy as data and rules
 * (`core/sanitizer_policy.ts`), the DOM walks both engines share
 * (`core/sanitizer_dom.ts`) and the DOMPurify engine (`core/sanitizer.ts`),
 * which re-exports the other two. Each stays pure like the engine.
 */
import assert from "node:assert/strict";
import * as engine from "../../core/sanitizer.ts";
import * as policy from "../../core/sanitizer_policy.ts";
import * as dom from "../../core/sanitizer_dom.ts";

const MODULES = ["sanitizer.ts", "sanitizer_policy.ts", "sanitizer_dom.ts"];

Deno.test("sanitizer modules: pure, values only from core/ siblings", async () => {
  for (const name of MODULES) {
    const source = await Deno.readTextFile(
      new URL(`../../core/${name}`, import.meta.url),
    );
    assert.doesNotMatch(
      source,
      /^\s*import\s+(?!type\b)(?![^;]*from "\.\/\w+\.ts";)/m,
      `${name}: only type imports, or values from core/`,
    );
    assert.doesNotMatch(source, /\bDeno\./, `${name}: no Deno APIs`);
  }
});

Deno.test("sanitizer modules: the engine re-exports the policy and the walks", () => {
  const reexported = [
    "DROPPED_WITH_CONTENT",
    "elementRule",
    "isAllowedAttribute",
    "isAllowedImage",
    "isAllowedSrcset",
    "isBoundaryTag",
    "isSeparated",
    "KEPT_TAGS",
    "LINK_REL",
    "MAX_IMAGE_SIDE",
    "SANITIZER_POLICY",
    "SEPARATED_TAGS",
    "URI_GATE",
  ] as const;
  for (const name of reexported) assert.equal(engine[name], policy[name], name);
  for (
    const name of [
      "flattenUnwrapped",
      "outsideBody",
      "protectPreNewline",
    ] as const
  ) {
    assert.equal(engine[name], dom[name], name);
  }
});

Deno.test("sanitizer policy: element rules and kept attributes", () => {
  assert.equal(policy.elementRule("td"), "keep");
  assert.equal(policy.elementRule("div"), "unwrap");
  assert.equal(policy.elementRule("script"), "drop");
  for (const tag of policy.KEPT_TAGS) {
    assert.ok(!policy.DROPPED_WITH_CONTENT.includes(tag), tag);
  }
  assert.equal(policy.keptAttributes("a"), policy.keptAttributes("a"));
  assert.deepEqual([...policy.keptAttributes("td") ?? []], [
    "colspan",
    "rowspan",
  ]);
  assert.equal(policy.keptAttributes("p"), undefined);
  assert.deepEqual(
    [
      ...new Set(
        [...["a", "img", "th", "td"]].flatMap((
          t,
        ) => [...policy.keptAttributes(t) ?? []]),
      ),
    ].sort(),
    policy.SANITIZER_POLICY.ALLOWED_ATTR,
  );
});
