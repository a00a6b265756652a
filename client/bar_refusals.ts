/**
 * The edit bar's side of refusals (part of the session chunk): every
 * `cms:error` (a save, publish, discard, restore, schedule, upload or
 * media library request the server or the network refused) shows in a
 * toast until it goes: closed, replaced, new changes begin, or the refused
 * save went through. A refused save is in the bar's status already (the
 * model's failed field); any other refusal is the status while its toast
 * shows (see `barStatus`).
 *
 * @module
 */

import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import type { Refusal } from "./refusal.ts";

/** The refusals the bar shows, made by {@linkcode barRefusals}. */
export interface BarRefusals {
  /** The refusal the status shows (not a save's), while its toast shows. */
  readonly text?: string;
  /** Stops listening. */
  stop(): void;
}

/**
 * Shows each `cms:error` in `bar`'s toast; `render` is asked for a status
 * render whenever {@linkcode BarRefusals.text} changes.
 *
 * @example
 * ```ts ignore
 * const refusals = barRefusals(kit, bar, render);
 * barStatus(model.status(), navigator.onLine, drafts, refusals.text);
 * ```
 */
export function barRefusals(
  kit: Kit,
  bar: EditBar,
  render: () => void,
): BarRefusals {
  let text: string | undefined, saveOf: string | undefined;
  const offs = [
    kit.listen<CustomEvent<Partial<Refusal>>>(
      document,
      "cms:error",
      ({ detail: d }) => {
        const message = d.message ?? t("notSaved", { reason: d.reason! });
        bar.toast(message, [], () => {
          text = saveOf = undefined;
          render();
        });
        if (d.message) text = message;
        else saveOf = d.field;
        render();
      },
    ),
    // A save refused before (retried, or saved again) went through.
    kit.listen<CustomEvent<{ field: string }>>(
      document,
      "cms:saved",
      ({ detail }) => saveOf === detail.field && bar.toast(""),
    ),
  ];
  return {
    get text() {
      return text;
    },
    stop: () => offs.forEach((off) => off()),
  };
}
