/**
 * Content checks in the editor (a lazy chunk, loaded by the session once
 * the editor is ready, on pages with a rich or an image region). Each
 * region is checked by the shared checker (`core/checks.ts`: rich regions
 * with `checkContent`, image fields' alt text with `checkAlt`) when the
 * browser is idle, then again 400 ms after each change: never on the
 * keystroke path. Findings are:
 *
 * - marked on the element concerned by a generated stylesheet (a dotted
 *   outline; nothing is written into the region, so no mark can reach the
 *   saved value), with the messages in a tip on hover and while the caret
 *   or focus is in it;
 * - in the accessibility tree: the region's `aria-describedby` names a
 *   hidden element with its messages;
 * - counted in the edit bar, whose button opens the Checks panel
 *   (`checks_panel.ts`, its own chunk) that lists them, jumps to each and
 *   offers the obvious fixes;
 * - told to other chunks as `cms:checks` `{n, errors}` on `document` (the
 *   Publish toast shows the count).
 *
 * Links added or changed to a path of this site are sent to the link check
 * endpoint (`checks` in the page config), whose answer adds `link-broken`.
 *
 * @module
 */

import {
  checkAlt,
  checkContent,
  type CheckOptions,
  type Finding,
  finding,
} from "../core/checks.ts";
import type { EditBar } from "./bar_types.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import { THEME } from "./theme.ts";

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
  /** Checks every region now. */
  run(): void;
  /** The bar's count button (focus returns there). */
  button: HTMLButtonElement;
  /** Called after each run (the open panel renders again). */
  changed?: () => void;
}

/** Start and end tags of serialized HTML (attribute values quoted). */
const TAG = /<(\/?)([a-z][\w-]*)(?:[^>"]|"[^"]*")*>/gi;
const VOID = /^(area|br|col|embed|hr|img|input|source|track|wbr)$/i;

/**
 * The elements a finding at `start`..`end` of `html` concerns, as indexes
 * in document order (the order of `querySelectorAll("*")`; `-1` is the
 * region): the element whose start tag holds `start` and its following
 * siblings that start before `end` (a run of paragraphs), or else the
 * innermost element open at `start` (a word in a text).
 *
 * @example
 * ```ts
 * import { located } from "./checks.ts";
 * located("<p>a</p><p>b b</p>", 11); // [1]
 * located("<p>• a</p><p>• b</p><p>c</p>", 0, 20); // [0, 1]
 * ```
 */
export function located(html: string, start: number, end = start): number[] {
  const open: number[] = [], out: number[] = [];
  let n = 0, depth = -1;
  for (const m of html.matchAll(TAG)) {
    const at = m.index;
    if (depth < 0 && at > start) {
      depth = 1e9;
      out.push(open.at(-1) ?? -1);
    }
    if (at >= end && depth >= 0) break;
    if (m[1]) {
      open.pop();
      continue;
    }
    const i = n++;
    if (depth < 0 ? at + m[0].length > start : open.length === depth) {
      out.push(i);
      depth = open.length;
    }
    if (!VOID.test(m[2])) open.push(i);
  }
  if (depth < 0) out.push(open.at(-1) ?? -1);
  return out;
}

/**
 * The heading level a region's headings follow: the last heading before
 * `el` in the page (1 when none).
 */
function headingBase(el: HTMLElement): number {
  let level = 1;
  for (const h of document.querySelectorAll("h1,h2,h3,h4,h5,h6")) {
    if (el.compareDocumentPosition(h) & 2 && !h.contains(el)) {
      level = +h.tagName[1];
    }
  }
  return level;
}

/** The findings of one region, located. */
function regionFindings(
  f: CheckField,
  el: HTMLElement,
  options: CheckOptions,
  broken: Located[],
): Found[] {
  const base = { f, region: el };
  if (f.image) {
    return checkAlt(el.getAttribute("alt"), options).map((x) => ({
      ...x,
      ...base,
      els: [el],
    }));
  }
  const html = el.innerHTML;
  const all = el.querySelectorAll("*");
  const checked: (Finding & { els?: Element[] })[] = [
    ...checkContent(html, { ...options, headingBase: headingBase(el) }),
    ...broken,
  ];
  return checked.map((x) => ({
    ...x,
    ...base,
    els: x.els ??
      (x.start === undefined
        ? [el]
        : located(html, x.start, x.end).map((i) => all[i] ?? el)),
  }));
}

/** The selector of `el` inside region `region` of field `id`. */
function selector(id: string, region: Element, el: Element): string {
  let path = "";
  for (let e = el; e !== region; e = e.parentElement!) {
    path = `>:nth-child(${
      [...e.parentElement!.children].indexOf(e) + 1
    })${path}`;
  }
  return `[data-cms-field="${CSS.escape(id)}"]${path}`;
}

const TIP =
  `.tip{position:fixed;z-index:2147483001;max-width:24em;padding:4px 8px;background:var(--fg);color:var(--bg);pointer-events:none}`;

const D = "aria-describedby";

/** Colours of the marks by severity (readable on light and dark pages). */
const MARK = { error: "#d4351c", warning: "#b06d00" };

/**
 * Starts checking the regions of `fields` and shows what is found (see the
 * module doc); `locale` is the page's content language (`""`: both word
 * lists), `links` the link check endpoint (`""`: none). Returns the cleanup.
 */
export function attachChecks(
  kit: Kit,
  bar: EditBar,
  fields: CheckField[],
  { locale, checks: links }: { locale: string; checks: string },
): () => void {
  const { h, listen, isolate } = kit;
  const { host, root } = isolate("cms-checks", THEME, TIP);
  const tip = h("div", { class: "tip k", hidden: "", "aria-hidden": "true" });
  const notes = h("div", { hidden: "" });
  const button = h("button", { hidden: "", "aria-haspopup": "dialog" });
  const marks = new CSSStyleSheet();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(c.run, 400);
  };
  const watch = new MutationObserver(later);
  // Each region is described by a hidden element with its messages.
  const regions = fields.filter((f) => f.rich || f.image).flatMap((f) =>
    f.els.map((el) => {
      const id = `cms-check-${notes.children.length}`, own = el.getAttribute(D);
      const note = h("div", { id });
      notes.append(note);
      el.setAttribute(D, own ? `${own} ${id}` : id);
      watch.observe(el, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
      });
      return { f, el, note, own };
    })
  );
  /** Messages by marked element. */
  let marked = new Map<Element, Found[]>();
  const options = {
    locale: locale || document.documentElement.lang,
    lang: t("lang"),
  };
  /** The link check, a chunk of its own, where the host routes it. */
  let links_: LinkCheck | undefined;
  if (links) {
    import("./checks_links.ts").then((m) =>
      links_ = m.linkChecker(links, finding("link-broken", options.lang))
    );
  }
  const c: Checks = {
    kit,
    root,
    found: [],
    button,
    run() {
      clearTimeout(timer);
      const found: Found[] = [], rules: string[] = [];
      marked = new Map();
      for (const { f, el, note } of regions) {
        const mine = regionFindings(f, el, options, links_?.(el, c.run) ?? []);
        note.textContent = mine.map((x) => x.message).join(". ");
        found.push(...mine);
      }
      for (const x of found) {
        for (const el of x.els) {
          marked.set(el, [...marked.get(el) ?? [], x]);
          rules.push(
            `${selector(x.f.id, x.region, el)}{outline:2px dotted ${
              MARK[x.severity]
            };outline-offset:2px}`,
          );
        }
      }
      marks.replaceSync(rules.join(""));
      button.hidden = !found.length;
      button.textContent = t("problems", { n: found.length });
      document.dispatchEvent(new CustomEvent("cms:checks", { detail: found }));
      c.found = found;
      c.changed?.();
    },
  };
  /** The tip for the marked element at or above `node`, or none. */
  const tipFor = (node: Node | null | undefined) => {
    let el = node instanceof Element ? node : node?.parentElement;
    while (el && !marked.has(el)) el = el.parentElement;
    tip.hidden = !el;
    if (!el) return;
    tip.textContent = marked.get(el)!.map((x) => x.message).join(" · ");
    const r = el.getBoundingClientRect();
    tip.style.cssText = `left:${r.left}px;top:${r.bottom + 6}px`;
  };
  root.append(tip);
  document.body.append(host, notes);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, marks];
  const offBar = bar.slot(button);
  button.onclick = () =>
    void import("./checks_panel.ts").then((m) => m.openPanel(c));
  const offs = [
    ...["mouseover", "focusin"].map((type) =>
      listen(document, type, (e) => tipFor(e.target as Node))
    ),
    listen(document, "selectionchange", () => {
      if (document.activeElement?.hasAttribute("contenteditable")) {
        tipFor(getSelection()?.anchorNode);
      }
    }),
    listen(window, "scroll", () => tip.hidden = true, true),
  ];
  later();
  return () => {
    clearTimeout(timer);
    watch.disconnect();
    offs.forEach((off) => off());
    offBar();
    for (const { el, own } of regions) {
      own === null ? el.removeAttribute(D) : el.setAttribute(D, own);
    }
    host.remove();
    notes.remove();
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== marks
    );
  };
}
