/**
 * axe-core in a test page: the serious and critical violations.
 */
import axe from "axe-core";
import type { Page } from "./browser.ts";

/** Runs axe in the page; returns the serious and critical violations. */
export async function seriousViolations(page: Page): Promise<string[]> {
  return await page.evaluate(async (source: string) => {
    const w = globalThis as unknown as { axe?: typeof axe };
    if (!w.axe) (0, eval)(source);
    const result = await w.axe!.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) =>
        `${v.id} (${v.impact}): ${
          v.nodes.map((n) => n.target.join(" ")).join(", ")
        }`
      );
  }, axe.source);
}
