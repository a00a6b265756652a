/**
 * Content checks in the editor (a lazy chunk, loaded by the session once
 * the editor is ready, on pages with a rich or an image region). Each
 * region is checked by the shared checker (`core/checks.ts`: rich regions
 * with `checkContent`, image fields' alt text with `checkAlt`) when the
 * chunk is attached, then again 400 ms after each change: never on the
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
 * - told to other chunks as `cms:checks` on `document`, the findings as
 *   its detail (the Publish toast says how many).
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
import type {
  CheckField,
  Checks,
  Found,
  LinkCheck,
  Located,
} from "./checks_types.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";
import { THEME } from "./theme.ts";

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
 * The regions of `fields` (rich and image ones) to check, each described
 * by a hidden element in `notes` (its messages; an element that is only
 * not rendered, like a shadow host's unslotted child, is not read by every
 * engine) and watched by `watch`.
 */
function describe(
  { h }: Kit,
  fields: CheckField[],
  notes: HTMLElement,
  watch: MutationObserver,
) {
  return fields.flatMap((f) =>
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
}

/**
 * Marks the elements of `found` (the rules of `sheet`); returns the
 * findings by marked element.
 */
function mark(found: Found[], sheet: CSSStyleSheet): Map<Element, Found[]> {
  const marked = new Map<Element, Found[]>(), rules: string[] = [];
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
  sheet.replaceSync(rules.join(""));
  return marked;
}

/** The tip follows the pointer, focus and caret; a scroll hides it. */
function tipEvents(
  { listen }: Kit,
  tip: HTMLElement,
  tipFor: (node?: Node | null) => void,
): (() => void)[] {
  return [
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
}

/** Shows in `tip` the messages of the marked element at or above `node`
 * (hides it when there is none). */
function showTip(
  tip: HTMLElement,
  marked: Map<Element, Found[]>,
  node?: Node | null,
): void {
  let el = node instanceof Element ? node : node?.parentElement;
  while (el && !marked.has(el)) el = el.parentElement;
  tip.hidden = !el;
  if (!el) return;
  tip.textContent = marked.get(el)!.map((x) => x.message).join(" · ");
  const r = el.getBoundingClientRect();
  tip.style.cssText =
    `position:fixed;z-index:2147483001;pointer-events:none;max-width:24em;left:${r.left}px;top:${
      r.bottom + 6
    }px`;
}

/**
 * Starts checking the regions of `fields` (the rich and image fields) and
 * shows what is found (see the module doc); `locale` is the page's content
 * language (`""`: both word lists), `checks` the link check endpoint
 * (`""`: none). Returns the cleanup.
 */
export function attachChecks(
  kit: Kit,
  bar: EditBar,
  fields: CheckField[],
  { locale, checks: links }: { locale: string; checks: string },
): () => void {
  const { h, isolate } = kit;
  const { host, root } = isolate("cms-checks", THEME);
  const tip = h("div", { class: "k", hidden: "", "aria-hidden": "true" });
  const button = h("button", { "aria-haspopup": "dialog" });
  /** Removes the count from the bar (it is there while there are any). */
  let offBar: (() => void) | undefined;
  const marks = new CSSStyleSheet();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(run, 400);
  };
  const watch = new MutationObserver(later);
  // The descriptions: hidden, in the document (for `aria-describedby`).
  const notes = h("div", { hidden: "" });
  const regions = describe(kit, fields, notes, watch);
  /** Messages by marked element. */
  let marked = new Map<Element, Found[]>();
  // The content's language (none: both lists of vague link texts), the
  // messages in the UI's.
  const options = { locale, lang: t("lang") };
  /** The link check, a chunk of its own, where the host routes it. */
  let links_: LinkCheck | undefined;
  if (links) {
    import("./checks_links.ts").then((m) => {
      links_ = m.linkChecker(links, finding("link-broken", options.lang));
      later();
    });
  }
  const c: Checks = { kit, root, found: [], button };
  const run = () => {
    const found: Found[] = [];
    for (const { f, el, note } of regions) {
      const mine = regionFindings(f, el, options, links_?.(el, later) ?? []);
      note.textContent = mine.map((x) => x.message).join(". ");
      found.push(...mine);
    }
    marked = mark(found, marks);
    if (!found[0]) offBar = void offBar?.();
    else offBar ??= bar.slot(button);
    button.textContent = t("problems", { n: found.length });
    document.dispatchEvent(new CustomEvent("cms:checks", { detail: found }));
    c.found = found;
    c.changed?.();
    tipFor(getSelection()?.anchorNode);
  };
  const tipFor = (node?: Node | null) => showTip(tip, marked, node);
  root.append(tip);
  document.body.append(host, notes);
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, marks];
  button.onclick = () =>
    void import("./checks_panel.ts").then((m) => m.openPanel(c));
  const offs = tipEvents(kit, tip, tipFor);
  later();
  return () => {
    clearTimeout(timer);
    watch.disconnect();
    offs.forEach((off) => off());
    offBar?.();
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
