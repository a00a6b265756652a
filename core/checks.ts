/**
 * Content checks: accessibility and quality problems of a rich field's HTML
 * (images without alt text, skipped heading levels, "click here" links,
 * paragraphs posing as a list...), found by a pure function that needs no
 * DOM, so the editor runs it in the browser as an editor types and the
 * server runs it before a publish.
 *
 * It reads the subset of HTML the sanitizer keeps (see
 * `sanitizer_policy.ts`) with a small tokenizer, not a full HTML parser:
 * tags, attributes in any quoting, the common character references.
 * Findings carry the character offsets in the HTML of the element
 * concerned. Messages are in English or German.
 *
 * @example
 * ```ts
 * import { checkAlt, checkContent } from "@inplace/cms/core";
 * checkContent('<h3>Intro</h3><p><a href="/a">click here</a></p>');
 * // [{ rule: "heading-skip", severity: "error", ... },
 * //  { rule: "link-vague", severity: "warning", ... }]
 * checkAlt("IMG_1234.jpg", { lang: "de" })[0].message;
 * // "Alternativtext ist ein Dateiname: das Bild beschreiben"
 * ```
 *
 * @module
 */

/** The id of a content check (see docs/checks.md for each rule). */
export type CheckRule =
  | "img-alt-missing"
  | "img-alt-filename"
  | "img-alt-long"
  | "heading-skip"
  | "heading-empty"
  | "link-empty"
  | "link-vague"
  | "link-broken"
  | "list-fake"
  | "table-no-header"
  | "text-all-caps"
  | "text-repeated-word"
  | "empty-paragraphs";

/** One problem found in a field's content. */
export interface Finding {
  /** Which check found it. */
  rule: CheckRule;
  /** `"error"` for barriers (a publish may wait for them), else `"warning"`. */
  severity: "error" | "warning";
  /** What is wrong and what to do, in the options' language. */
  message: string;
  /** Offset in the HTML where the element concerned starts. */
  start?: number;
  /** Offset in the HTML just after the element concerned. */
  end?: number;
}

/** Options of {@linkcode checkContent} and {@linkcode checkAlt}. */
export interface CheckOptions {
  /**
   * The level of the heading that contains the region on the page (default
   * 1): the region's first heading may be one level below it.
   */
  headingBase?: number;
  /**
   * The content's language (BCP 47). `de…` checks link texts against the
   * German vague phrases, `en…` against the English ones; otherwise both.
   */
  locale?: string;
  /**
   * The language of the messages (the editor's UI language); default: the
   * language of `locale`, else English. `de…` is German.
   */
  lang?: string;
}

/** [English, German] message of each rule; `$` is replaced by a detail. */
const MESSAGES: Record<CheckRule, [string, string]> = {
  "img-alt-missing": ["Image without alt text", "Bild ohne Alternativtext"],
  "img-alt-filename": [
    "Alt text is a file name",
    "Alternativtext ist ein Dateiname",
  ],
  "img-alt-long": [
    "Alt text over 150 characters",
    "Alternativtext über 150 Zeichen",
  ],
  "heading-skip": [
    "Heading skips a level: use h$",
    "Überschrift überspringt eine Ebene: h$",
  ],
  "heading-empty": ["Empty heading", "Leere Überschrift"],
  "link-empty": ["Link without text", "Link ohne Text"],
  "link-vague": [
    "Link text means nothing out of context",
    "Linktext sagt allein nichts",
  ],
  "link-broken": ["Link to a missing page", "Link auf fehlende Seite"],
  "list-fake": [
    "Paragraphs posing as a list",
    "Absätze als Scheinliste",
  ],
  "table-no-header": [
    "Table without header cells",
    "Tabelle ohne Kopfzellen",
  ],
  "text-all-caps": ["Text in capitals", "Text in Großbuchstaben"],
  "text-repeated-word": ['Repeated word "$"', "Doppeltes Wort „$“"],
  "empty-paragraphs": [
    "Empty paragraphs as spacing",
    "Leere Absätze als Abstand",
  ],
};

/** Rules whose findings are errors. */
const ERRORS =
  /^(img-alt-missing|heading-skip|heading-empty|link-empty|link-broken)$/;

/**
 * The message of `rule` in `lang` (`de…`: German, else English), with `$`
 * replaced by `detail`.
 */
export function checkMessage(
  rule: CheckRule,
  lang?: string,
  detail = "",
): string {
  return MESSAGES[rule][/^de/i.test(lang ?? "") ? 1 : 0].replace("$", detail);
}

/** A finding of `rule` over `start`..`end`, in `lang`. */
export function finding(
  rule: CheckRule,
  lang?: string,
  start?: number,
  end?: number,
  detail?: string,
): Finding {
  const f: Finding = {
    rule,
    severity: ERRORS.test(rule) ? "error" : "warning",
    message: checkMessage(rule, lang, detail),
  };
  if (start !== undefined) Object.assign(f, { start, end });
  return f;
}

/** Alt texts that are a file name or a camera's file id. */
const FILE_NAME =
  /\.(jpe?g|png|gif|webp|avif|hei[cf]|svg|tiff?|bmp)$|^(img|dsc[fn]?|dcim|pxl|mvimg|gopr|dji|sam|wp|p)[_-]?\d{3}|^(screen ?shot|bildschirmfoto|capture)\b.*\d|^[a-z]*[_-]?\d{4,}([_-]\d+)*$/i;

/**
 * The findings about an image's alt text: `null`/`undefined` is a missing
 * alt (`img-alt-missing`), `""` a decorative image (fine); a file name or
 * camera id (`img-alt-filename`), over 150 characters (`img-alt-long`).
 * For the alt text a host renders for an image field.
 */
export function checkAlt(
  alt: string | null | undefined,
  options: CheckOptions = {},
): Finding[] {
  return altFindings(alt, options.lang ?? options.locale);
}

function altFindings(
  alt: string | null | undefined,
  lang?: string,
  start?: number,
  end?: number,
): Finding[] {
  const text = alt?.trim();
  const rule: CheckRule | "" = text === undefined
    ? "img-alt-missing"
    : FILE_NAME.test(text)
    ? "img-alt-filename"
    : text.length > 150
    ? "img-alt-long"
    : "";
  return rule ? [finding(rule, lang, start, end)] : [];
}

/** Vague link texts, English then German. */
const VAGUE = [
  /^((click )?here|(read )?more|(this )?link)$/,
  /^(hier( klicken)?|klicken sie hier|mehr( lesen)?|weiterlesen)$/,
];

/** In the masked text: an inline tag (joins), a block boundary. */
const JOIN = "\uE000";
const BREAK = "\uE001";
/** In the masked text: a character of code (text, but no words). */
const CODE = "\uE002";
/** Tags that do not separate words (the rest, `br` and `img` do). */
const INLINE = /^([abius]|em|strong|strike|del|span|mark|small|su[bp])$/;
const VOID = /^(img|br|hr|wbr|input)$/;
const TAG =
  /<!--[\s\S]*?-->|<(\/?)([a-z][a-z0-9]*)((?:"[^"]*"|'[^']*'|[^'">])*)>/gi;
const ATTR = /([^\s=/"']+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
const ENTITY = /&(#?\w+);/g;
const NAMED: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
};

/**
 * `text` with its character references decoded: the ones the sanitizer
 * writes (`&amp; &lt; &gt; &quot; &nbsp;`) and `&apos;`; any other reads as
 * a space (they are punctuation and symbols in practice).
 */
function decode(text: string, pad = false): string {
  return text.replace(ENTITY, (e, name: string) => {
    const c = NAMED[name] ?? " ";
    return pad ? c.padEnd(e.length, JOIN) : c;
  });
}

/** An open element while the tokenizer walks the HTML. */
interface Open {
  tag: string;
  start: number;
  /** Offset just after the opening tag. */
  inner: number;
  attrs: Record<string, string>;
  /** An image inside (for "empty"), with non-empty alt (for "named"). */
  img?: boolean;
  named?: boolean;
  th?: boolean;
}

/** A run of consecutive paragraphs: where it starts and ends, how many. */
interface Run {
  start: number;
  end: number;
  n: number;
  /** The fake list's last number (NaN for a bullet run). */
  num?: number;
}

/*
 * The state of the check under way (a check runs to its end synchronously,
 * so module variables serve and keep the bundled chunk small).
 */
/** The HTML checked. */
let src = "";
/** `src` with tags and references masked, offsets kept (see `mask`). */
let masked = "";
/** The messages' language. */
let lang: string | undefined;
/** The vague link texts that apply. */
let vague: RegExp[] = [];
/** The level of the last heading. */
let level = 1;
/** The findings so far. */
let out: Finding[] = [];
/** Runs of empty paragraphs, and of paragraphs posing as list items. */
let empties: Run[] = [];
let lists: Run[] = [];

/**
 * The findings of every content check on `html` (a rich field's sanitized
 * HTML), in document order. Never throws; offsets are within
 * `html`.
 */
export function checkContent(
  html: string,
  options: CheckOptions = {},
): Finding[] {
  const locale = options.locale ?? "";
  src = html;
  masked = mask(html);
  lang = options.lang ?? locale;
  vague = /^de/i.test(locale)
    ? [VAGUE[1]]
    : /^en/i.test(locale)
    ? [VAGUE[0]]
    : VAGUE;
  level = options.headingBase ?? 1;
  out = [];
  empties = [];
  lists = [];
  const stack: Open[] = [];
  for (const t of html.matchAll(TAG)) {
    const at = t.index, end = at + t[0].length;
    const tag = (t[2] ?? "").toLowerCase();
    if (!tag) continue;
    if (t[1]) {
      const i = stack.findLastIndex((o) => o.tag === tag);
      if (i < 0) continue;
      for (const o of stack.splice(i).reverse()) close(o, at, end);
    } else {
      const o: Open = { tag, start: at, inner: end, attrs: attrs(t[3]) };
      if (tag === "img") image(stack, o, end);
      if (tag === "th") {
        const table = stack.findLast((s) => s.tag === "table");
        if (table) table.th = true;
      }
      if (!VOID.test(tag)) stack.push(o);
    }
  }
  for (const o of stack.reverse()) close(o, html.length, html.length);
  runs(empties, "empty-paragraphs");
  runs(lists, "list-fake");
  repeated();
  return out.sort((a, b) => a.start! - b.start!);
}

/**
 * `html` with every tag masked (inline tags by `JOIN`, the rest by
 * `BREAK`), character references decoded and padded with `JOIN`, and the
 * text of code masked by `CODE`: the offsets stay those of `html`.
 */
function mask(html: string): string {
  const parts: string[] = [];
  let last = 0, code = 0;
  const text = (to: number) => {
    const raw = html.slice(last, to);
    parts.push(code ? CODE.repeat(raw.length) : decode(raw, true));
  };
  for (const t of html.matchAll(TAG)) {
    text(t.index);
    const tag = (t[2] ?? "").toLowerCase();
    if (/^(code|pre)$/.test(tag)) code = Math.max(0, code + (t[1] ? -1 : 1));
    parts.push((INLINE.test(tag) ? JOIN : BREAK).repeat(t[0].length));
    last = t.index + t[0].length;
  }
  text(html.length);
  return parts.join("");
}

/** A link of a field to a page of the same site (see {@linkcode siteLinks}). */
export interface SiteLink {
  /** The path and query to check (`/about?x=1`), without the fragment. */
  path: string;
  /** Offset in the HTML where the `<a>` tag starts. */
  start: number;
  /** Offset in the HTML just after the `<a>` tag. */
  end: number;
}

/**
 * The links of `html` to pages of the site at `base` (the page's URL:
 * relative links are resolved against it), in document order: what the
 * editor sends to the link check endpoint. Links to other origins,
 * `mailto:` and `tel:` are left out, and so is a link to `base` itself
 * with only a fragment (`#part`).
 */
export function siteLinks(html: string, base: string): SiteLink[] {
  const links: SiteLink[] = [];
  const page = URL.parse(base);
  for (const t of html.matchAll(TAG)) {
    const href = t[2]?.toLowerCase() === "a" && !t[1] && attrs(t[3]).href;
    const url = href && page && URL.parse(href.trim(), page);
    if (url && url.origin === page!.origin && !/^\s*#/.test(href)) {
      const path = url.pathname + url.search;
      links.push({ path, start: t.index, end: t.index + t[0].length });
    }
  }
  return links;
}

/** The attributes of a tag's attribute text, names lower case. */
function attrs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const a of text.matchAll(ATTR)) {
    out[a[1].toLowerCase()] = decode(a[2] ?? a[3] ?? a[4] ?? "");
  }
  return out;
}

/** An `<img>`: its alt text checked, its open ancestors told. */
function image(stack: Open[], o: Open, end: number) {
  const alt = o.attrs.alt;
  out.push(...altFindings(alt, lang, o.start, end));
  for (const s of stack) {
    s.img = true;
    if (alt?.trim()) s.named = true;
  }
}

/** The checks of an element that ends at `at` (its closing tag to `end`). */
function close(o: Open, at: number, end: number) {
  const add = (rule: CheckRule, detail?: string) =>
    out.push(finding(rule, lang, o.start, end, detail));
  if (o.tag === "table" && !o.th) add("table-no-header");
  if (!/^(h\d|a|p)$/.test(o.tag)) return;
  const plain = masked.slice(o.inner, at).replace(/[\s\uE000\uE001]+/g, " ")
    .trim();
  const h = /^h([1-6])$/.exec(o.tag)?.[1];
  if (h) {
    if (+h > level + 1) add("heading-skip", String(level + 1));
    level = +h;
    if (!plain && !o.named) add("heading-empty");
  }
  if (o.tag === "a" && "href" in o.attrs) {
    if (!plain && !o.named) add("link-empty");
    const said = plain.toLowerCase().replace(/[^\p{L}\s]+/gu, " ").trim()
      .replace(/\s+/g, " ");
    if (said && vague.some((v) => v.test(said))) add("link-vague");
  }
  if (o.tag === "p") paragraph(o, plain, end);
  if (
    (h || o.tag === "p") && !/\p{Ll}/u.test(plain) &&
    /\p{Lu}/u.test(plain) && (plain.match(/[\p{L}\p{N}]+/gu)?.length ?? 0) > 3
  ) add("text-all-caps");
}

/** A closed paragraph: added to a run of empty ones or of fake items. */
function paragraph(o: Open, plain: string, end: number) {
  if (!plain && !o.img) return extend(empties, o.start, end);
  const mark = /^(?:[•·]|[-*–](?=\s)|(\d{1,3})[.)](?=\s))/.exec(plain);
  if (!mark) return;
  const num = mark[1] ? +mark[1] : NaN;
  const prev = lists.at(-1);
  const next = prev && (isNaN(num) ? isNaN(prev.num!) : prev.num! + 1 === num);
  extend(lists, o.start, end, next ? undefined : [], num);
}

/**
 * Adds the paragraph `start`..`end` to the last of `runs` when only white
 * space lies between them (and `fresh` is not given), else starts a run.
 */
function extend(
  runs: Run[],
  start: number,
  end: number,
  fresh?: [],
  num?: number,
) {
  const prev = runs.at(-1);
  if (!fresh && prev && !src.slice(prev.end, start).trim()) {
    prev.end = end;
    prev.n++;
    prev.num = num;
  } else runs.push({ start, end, n: 1, num });
}

/** One finding of `rule` per run of two or more paragraphs. */
function runs(list: Run[], rule: CheckRule) {
  for (const r of list) {
    if (r.n > 1) out.push(finding(rule, lang, r.start, r.end));
  }
}

/** The same word twice in a row within a block (`text-repeated-word`). */
function repeated() {
  let prev: { word: string; start: number } | undefined;
  for (const t of masked.matchAll(/[\p{L}\p{N}\uE000]+|[\uE001\uE002]+/gu)) {
    const word = t[0].replace(/\uE000/g, "").toLowerCase();
    if (!/\p{L}/u.test(word)) {
      if (word) prev = undefined; // a number, a boundary, code
      continue;
    }
    const start = t.index + t[0].search(/[^\uE000]/);
    if (prev?.word === word) {
      const end = t.index + t[0].replace(/\uE000+$/, "").length;
      out.push(
        finding("text-repeated-word", lang, prev.start, end, word),
      );
    }
    prev = { word, start };
  }
}
