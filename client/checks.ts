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

/**
 * How many elements start in `html` before offset `at`: the index (in
 * document order, that of `querySelectorAll("*")`) of the element whose
 * start tag is at `at`. Text never holds a raw `<`.
 *
 * @example
 * ```ts
 * import { tagsBefore } from "./checks.ts";
 * tagsBefore("<p>a</p><p><em>b</em> c c</p>", 8); // 1
 * ```
 */
export const tagsBefore = (html: string, at = 0): number =>
  html.slice(0, at).split(/<[a-z]/i).length - 1;

/**
 * The elements a finding at `start`..`end` of region `el` concerns, `all`
 * its elements: the element starting at `start` and its siblings that
 * start before `end` (a run of paragraphs); for an offset in text (a
 * word), the block around it; the region for the whole region.
 *
 * @example
 * ```ts ignore
 * located(el, el.innerHTML, el.querySelectorAll("*"), finding); // [img]
 * ```
 */
export function located(
  el: HTMLElement,
  html: string,
  all: NodeListOf<Element>,
  { start, end }: Finding,
): Element[] {
  const k = tagsBefore(html, start), first = all[k];
  if (start === undefined) return [el];
  if (html[start] === "<") {
    return [...all].slice(k, tagsBefore(html, end)).filter((e) =>
      e.parentNode === first.parentNode
    );
  }
  let e = all[k - 1] ?? el;
  while (e !== el && getComputedStyle(e).display === "inline") {
    e = e.parentElement!;
  }
  return [e];
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
  const html = el.innerHTML;
  const all = el.querySelectorAll("*");
  const checked: (Finding & { els?: Element[] })[] = f.image
    ? checkAlt(el.getAttribute("alt"), options)
    : [
      ...checkContent(html, { ...options, headingBase: headingBase(el) }),
      ...broken,
    ];
  return checked.map((x) => ({
    ...x,
    f,
    region: el,
    els: x.els ?? located(el, html, all, x),
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

const D = "aria-describedby";

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
  const { host, root } = isolate("cms-checks", THEME);
  const tip = h("div", { class: "k", hidden: "", "aria-hidden": "true" });
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
            // Red for an error, amber for a warning, on light and dark pages.
            `${selector(x.f.id, x.region, el)}{outline:2px dotted #${
              x.severity < "f" ? "d4351c" : "b06d00"
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
      tipFor(getSelection()?.anchorNode);
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
    tip.style.cssText =
      `position:fixed;z-index:2147483001;max-width:24em;left:${r.left}px;top:${
        r.bottom + 6
      }px`;
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
    // The caret in a marked element shows its tip too.
    listen(
      document,
      "selectionchange",
      () => tipFor(getSelection()?.anchorNode),
    ),
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
