/**
 * The types the content checks' chunks share (`checks.ts`, the panel
 * `checks_panel.ts`, the link check `checks_links.ts`): types only, so
 * no chunk imports another for them.
 *
 * @module
 */

import type { Finding } from "../core/checks.ts";
import type { Kit } from "./dom.ts";

/** A field of the page as the checks see it (the session's fields). */
export interface CheckField {
  /** The address, e.g. `pages:home:body`. */
  id: string;
  /** The field's name in the marker, e.g. `body`. */
  field: string;
  els: HTMLElement[];
  rich?: boolean;
  image?: boolean;
}

/** One finding in one region, with the elements it marks. */
export interface Found extends Finding {
  /** The field. */
  f: CheckField;
  /** The region. */
  region: HTMLElement;
  /** The elements concerned (the region itself for the whole region). */
  els: Element[];
}

/** A finding with the elements it concerns. */
export type Located = Finding & { els: Element[] };

/**
 * The link check of a region: its `link-broken` findings; `again` runs the
 * checks when the server's answer comes.
 */
export type LinkCheck = (el: HTMLElement, again: () => void) => Located[];

/** What the panel and the fixes share with the checks. */
export interface Checks {
  kit: Kit;
  /** The checks' shadow root (tip, panel, dialogs). */
  root: ShadowRoot;
  /** The findings of the last run, in page order. */
  found: Found[];
  /** The bar's count button (focus returns there). */
  button: HTMLButtonElement;
  /** Called after each run (the open panel renders again). */
  changed?: () => void;
}
