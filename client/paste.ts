/**
 * Pasted office HTML made plain (a lazy chunk, loaded at the first paste of
 * HTML that carries Word, Google Docs or LibreOffice signatures, see
 * `OFFICE` in `rich_uploads.ts`): the structure those editors hide in styles and
 * markers becomes real HTML, before the shared sanitizer policy cleans it
 * as any paste.
 *
 * - Word: paragraphs styled `mso-list:l0 level2 lfo1` become nested `<ul>`
 *   or `<ol>` (ordered when the marker is a number or letter like `1.` or
 *   `a)`); the markers (`·`, `o`, `§`, `1.` and their runs of spaces) go.
 * - Google Docs and Word on the web: flat lists whose items carry
 *   `aria-level` (or `data-aria-level`) are nested again; the `<b
 *   id="docs-internal-guid-…">` wrapper (not bold) is unwrapped; spans
 *   styled bold or italic become `<strong>` / `<em>`.
 * - LibreOffice: a list placed directly in a list moves into the item
 *   before it.
 * - Tables: a first row of `<th>`, of bold cells, or marked as Word's
 *   repeated header row (`mso-yfti-irow:-1`) becomes `<thead>` with `<th>`.
 * - A lone `<p>` in an item or a cell is unwrapped.
 *
 * @module
 */

type El = HTMLElement;
/** One flat list item: its level (1 = top), its list tag, its list's key. */
type Item = [number, string, string, El];

const all = (
  root: ParentNode,
  sel: string,
) => [...root.querySelectorAll<El>(sel)];
const unwrap = (el: Element) => el.replaceWith(...el.childNodes);
const attr = (el: Element, name = "style") => el.getAttribute(name) ?? "";
/** Puts the content of `el` into a new `tag` inside it. */
const wrap = (el: Element, tag: string) => {
  const w = el.ownerDocument.createElement(tag);
  w.append(...el.childNodes);
  el.append(w);
};
const ORDERED = /^(decimal|.*(alpha|roman|latin|greek))/;

/**
 * Nests flat `items` (in document order) into lists; returns the top-level
 * lists. A level deeper than one below the last goes one below it.
 */
function nest(doc: Document, items: Item[]): El[] {
  const top: El[] = [];
  const stack: El[] = [];
  const keys = new Map<El, string>();
  for (const [level, tag, key, li] of items) {
    const d = Math.max(0, Math.min(level - 1, stack.length));
    let list = stack[d];
    if (!list || list.localName !== tag || (!d && keys.get(list) !== key)) {
      list = doc.createElement(tag);
      keys.set(list, key);
      if (d) stack[d - 1].lastElementChild!.append(list);
      else top.push(list);
    }
    stack[d] = list;
    stack.length = d + 1;
    list.append(li);
  }
  return top;
}

/** Replaces each run of adjacent `nodes` by what `make` builds of it. */
function runs(nodes: El[], make: (run: El[]) => El[]): void {
  let run: El[] = [];
  const flush = () => {
    if (run.length) run[0].before(...make(run));
    for (const n of run) n.remove();
    run = [];
  };
  for (const n of nodes) {
    if (run.length && n.previousElementSibling !== run[run.length - 1]) {
      flush();
    }
    run.push(n);
  }
  flush();
}

/** Word's list paragraphs, made lists. */
function wordLists(doc: Document): void {
  const list = /mso-list:\s*(l\d+)\s+level(\d+)/i;
  runs(all(doc.body, "p").filter((p) => list.test(attr(p))), (run) =>
    nest(
      doc,
      run.map((p) => {
        const [, id, level] = list.exec(attr(p))!;
        const marks = all(p, "[style*='mso-list:ignore' i]");
        const mark = (marks[0]?.textContent ?? "").replace(/\s/g, "");
        for (const m of marks) m.remove();
        const li = doc.createElement("li");
        li.append(...p.childNodes);
        const ol = /\d/.test(mark) || /^\(?[a-z]{1,4}[.)]$/i.test(mark);
        return [+level, ol ? "ol" : "ul", id, li] as Item;
      }),
    ));
}

/** Flat lists (items with `aria-level`), nested. */
function flatLists(doc: Document): void {
  for (const w of all(doc.body, "div.ListContainerWrapper")) unwrap(w);
  const lists = all(doc.body, "ul,ol").filter((l) =>
    l.querySelector(":scope>[aria-level],:scope>[data-aria-level]")
  );
  runs(lists, (run) =>
    nest(
      doc,
      run.flatMap((l) =>
        all(l, ":scope>li").map((li): Item => {
          const level = attr(li, "aria-level") || attr(li, "data-aria-level");
          const type = li.style.listStyleType || l.style.listStyleType;
          const tag = type ? ORDERED.test(type) ? "ol" : "ul" : l.localName;
          return [+level || 1, tag, "", li];
        })
      ),
    ));
}

const LIST = /^[ou]l$/;

/**
 * LibreOffice's lists: `<ol><li>A</li><ol>…</ol></ol>` puts the inner list
 * into A; `<ol>A</ol><ol><ol>B</ol></ol><ol start="2">C</ol>` becomes one
 * list with B nested in A.
 */
function libreLists(doc: Document): void {
  for (const l of all(doc.body, ":is(ul,ol)>:is(ul,ol)")) {
    const prev = l.previousElementSibling;
    if (prev?.localName === "li") prev.append(l);
    else {
      const li = doc.createElement("li");
      l.replaceWith(li);
      li.append(l);
    }
  }
  for (const l of all(doc.body, "ul,ol")) {
    const p = l.previousElementSibling;
    const last = p && LIST.test(p.localName) && p.lastElementChild;
    if (!last) continue;
    const first = l.firstElementChild!;
    const inner = first?.firstElementChild;
    if (
      inner && LIST.test(inner.localName) &&
      first.textContent!.trim() === inner.textContent!.trim()
    ) {
      last.append(inner);
      first.remove();
    }
    if (
      !l.children.length || (l.localName === p.localName &&
        +attr(l, "start") === p.children.length + 1)
    ) {
      p.append(...l.children);
      l.remove();
    }
  }
}

/** Whether every piece of text in `cell` is bold. */
const bold = (cell: Element) => {
  const walk = cell.ownerDocument.createTreeWalker(cell, 4);
  let any = false;
  while (walk.nextNode()) {
    const n = walk.currentNode;
    if (!n.textContent!.trim()) continue;
    if (!n.parentElement!.closest("b,strong,th")) return false;
    any = true;
  }
  return any;
};

/** A first row of headers becomes the table's `<thead>` of `<th>`. */
function headers(doc: Document): void {
  for (const table of all(doc.body, "table") as HTMLTableElement[]) {
    const row = table.rows[0];
    if (!row || table.tHead?.rows.length || table.rows.length < 2) continue;
    const cells = [...row.cells];
    if (
      !/mso-yfti-irow:\s*-1/i.test(attr(row)) &&
      !cells.every((c) => c.localName === "th" || bold(c))
    ) continue;
    table.createTHead().append(row);
    for (const c of cells) {
      if (c.localName === "th") continue;
      const th = doc.createElement("th");
      for (const a of ["colspan", "rowspan"]) {
        if (c.hasAttribute(a)) th.setAttribute(a, attr(c, a));
      }
      th.append(...c.childNodes);
      for (const b of all(th, "b,strong")) unwrap(b);
      c.replaceWith(th);
    }
  }
}

const BLOCK = /^(ul|ol|p|table|br)$/;
/** Whether `n` is missing or a block: text beside it may lose its spaces. */
const edge = (n: Node | null) => !n || BLOCK.test((n as Element).localName);

/** Source-formatting whitespace at the edges of items, cells and
 * paragraphs goes (the sanitizer keeps text as it is). */
function trim(doc: Document): void {
  const walk = doc.createTreeWalker(doc.body, 4);
  while (walk.nextNode()) {
    const n = walk.currentNode as Text;
    if (!/^(li|t[dh]|p)$/.test(n.parentElement!.localName)) continue;
    if (edge(n.previousSibling)) n.data = n.data.replace(/^[ \t\r\n]+/, "");
    if (edge(n.nextSibling)) n.data = n.data.replace(/[ \t\r\n]+$/, "");
  }
}

/**
 * `html` from Word, Google Docs or LibreOffice with its lists nested, its
 * table headers marked and its wrappers gone; the result still goes
 * through the sanitizer policy.
 *
 * @example
 * ```ts ignore
 * const { tidy } = await import("./paste.ts");
 * tidy('<ul><li aria-level="1">A</li><li aria-level="2">B</li></ul>');
 * // "<ul><li>A<ul><li>B</li></ul></li></ul>"
 * ```
 */
export function tidy(html: string): string {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const body = doc.body;
  for (const b of all(body, "b[id^='docs-internal-guid']")) unwrap(b);
  for (const s of all(body, "span[style]")) {
    const { fontWeight: w, fontStyle } = s.style;
    if (fontStyle === "italic") wrap(s, "em");
    if (w === "bold" || +w >= 600) wrap(s, "strong");
  }
  wordLists(doc);
  flatLists(doc);
  libreLists(doc);
  headers(doc);
  trim(doc);
  for (
    const p of all(
      body,
      "li>p:only-of-type,td>p:only-of-type,th>p:only-of-type",
    )
  ) unwrap(p);
  return body.innerHTML;
}
