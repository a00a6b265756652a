/**
 * The review panel's content (a lazy chunk, loaded at the panel's first
 * open), rendered whole from the view's state; `review.ts` keeps focus and
 * typed text across renders: the header (review link, show resolved,
 * close), the refusal line, the latest verdicts, a reviewer's name form,
 * the top form (a new thread on the selection, or a verdict's note) and the
 * threads.
 *
 * @module
 */

import type { Comment, ReviewLinkAnswer } from "../core/protocol/review.ts";
import { labels } from "./labels.ts";
import type { Thread } from "./review_model.ts";
import type { PanelActions, View } from "./review_types.ts";

/** The panel's rules (adopted into the view's shadow root at first use). */
const STYLE =
  `.P{position:fixed;z-index:2147483001;top:16px;right:16px;width:min(24em,calc(100vw - 32px));max-height:calc(100vh - 120px);overflow:auto}
ul{list-style:none;margin:0;padding:0}li{border-top:1px solid var(--bg2);padding:var(--sp) 0;content-visibility:auto;contain-intrinsic-size:auto 9em}
.on{background:var(--bg2)}.c p{margin:2px 0 4px;white-space:pre-wrap;overflow-wrap:anywhere}
.q{display:block;white-space:normal;text-align:left;border-left:3px solid #e0a800;margin:0 0 4px}
textarea{width:100%;font:var(--f);padding:6px;border:1px solid var(--bd);border-radius:var(--r2);background:var(--bg);color:var(--fg)}
.a{margin:4px 0}
@media(max-width:480px){.P{top:auto;bottom:8px;left:8px;right:8px;width:auto;max-height:70vh}}`;

/** The panel's helpers, made once per render. */
interface Tools {
  v: View;
  x: PanelActions;
  h: View["kit"]["h"];
  L: PanelActions["L"];
  btn(label: string, run: () => unknown, primary?: boolean): HTMLElement;
  /** A text box whose text is kept under `k`; Ctrl+Enter runs `go`. */
  area(k: string, label: string, go: () => unknown): HTMLElement;
  /** Sends the text typed under `k` with `body`; clears it on success. */
  send(k: string, method: string, url: string, body: object): unknown;
  /** A comment's URL. */
  item(id: string): string;
  /** A time in the UI's language (one formatter per render: 200 comments
   * with a formatter each would take longer than the rest). */
  when(iso: string): string;
}

/** The helpers of one render. */
function tools(v: View, x: PanelActions): Tools {
  const { h } = v.kit;
  const time = new Intl.DateTimeFormat(labels.lang, {
    dateStyle: "medium",
    timeStyle: "short",
  });
  return {
    v,
    x,
    h,
    L: x.L,
    btn(label, run, primary) {
      const b = h("button", primary ? { class: "p" } : {}, label);
      b.onclick = () => void run();
      return b;
    },
    area(k, label, go) {
      const a = h("textarea", { "data-k": k, "aria-label": label, rows: "3" });
      a.value = v.drafts.get(k) ?? "";
      a.oninput = () => v.drafts.set(k, a.value);
      a.onkeydown = (e) =>
        e.key === "Enter" && (e.ctrlKey || e.metaKey) && void go();
      return a;
    },
    send(k, method, url, body) {
      const text = v.drafts.get(k)?.trim();
      if (!text && k !== "note") return;
      const key = k == "note" ? k : "text";
      return x.call(v, method, url, { ...body, [key]: text }).then((ok) =>
        ok &&
        (v.drafts.delete(k),
          k == "note" || k == "new"
            ? v.form = undefined
            : v.replying = v.editing = undefined)
      );
    },
    item: (id) => `${v.cfg.comments}/${encodeURIComponent(id)}`,
    when: (iso) => time.format(Date.parse(iso)),
  };
}

/** The panel's nodes for the view's state. */
export function renderPanel(v: View, x: PanelActions): Node[] {
  const o = tools(v, x), { h, L } = o, { root } = v;
  const rules = v.kit.sheet(STYLE);
  if (!root.adoptedStyleSheets.includes(rules)) {
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, rules];
  }
  if (!v.me.name) return [...header(o), ...nameForm(o)];
  const shown = v.list.filter((t) => v.all || !t.head.resolved);
  return [
    ...header(o),
    ...topForm(o),
    shown.length
      ? h("ul", {}, ...shown.map((t) => thread(o, t)))
      : h("p", { class: "m" }, L("none")),
  ];
}

/** Title, Review link, Show resolved, Close; the refusal; the verdicts. */
function header({ v, x, h, L, btn, when }: Tools): Node[] {
  const { cfg, link } = v;
  const all = h("input", { type: "checkbox" });
  all.checked = !!v.all;
  all.onchange = () => (v.all = all.checked, x.render(v));
  const make = async () => {
    const res = await x.call(v, "POST", cfg.review, {
      page: location.pathname,
    });
    if (res) v.link = await res.json() as ReviewLinkAnswer, x.render(v);
  };
  return [
    h("h2", { tabindex: "-1" }, L("title")),
    h(
      "div",
      { class: "a" },
      ...cfg.review && !cfg.reviewer ? [btn(L("link"), make)] : [],
      h("label", { class: "c" }, all, L("showResolved")),
      btn(L("close"), () => x.toggle(v, false)),
    ),
    h("p", { class: "e", role: "alert" }, v.error ?? ""),
    ...link ? linkBox(h, L, link, when(link.expires)) : [],
    h(
      "ul",
      {},
      ...v.data.approvals.slice(-3).reverse().map((a) =>
        h("li", { class: "m" }, x.said(a))
      ),
    ),
  ];
}

/** The review link just made, selected on focus, with Copy. */
function linkBox(
  h: Tools["h"],
  L: Tools["L"],
  link: ReviewLinkAnswer,
  when: string,
): Node[] {
  const input = h("input", {
    type: "text",
    readonly: "",
    value: link.url,
    "aria-label": L("link"),
  });
  input.onfocus = () => input.select();
  const copy = h("button", {}, L("copy"));
  copy.onclick = () => navigator.clipboard?.writeText(link.url);
  return [
    h("p", {}, L("linkMade", { when })),
    input,
    h("div", { class: "a" }, copy),
  ];
}

/** A reviewer's name, asked once (the server keeps it with the link). */
function nameForm({ v, x, h, L, btn }: Tools): Node[] {
  const name = h("input", { type: "text", "data-k": "name", maxlength: "80" });
  // Kept across renders (a re-read while typing), like the text boxes.
  name.value = v.drafts.get("name") ?? "";
  name.oninput = () => v.drafts.set("name", name.value);
  const go = async () => {
    const n = name.value.trim();
    const body = { name: n, page: location.pathname };
    if (n && await x.call(v, "POST", v.cfg.reviewName, body)) {
      v.me.name = n, x.render(v), x.stream(v);
    }
  };
  name.onkeydown = (e) => e.key === "Enter" && void go();
  return [
    h("label", {}, L("name"), name),
    h("p", { class: "m" }, L("nameHint")),
    h("div", { class: "a" }, btn(L("go"), go, true)),
  ];
}

/** The top form: a new thread on the selection, or a verdict's note. */
function topForm({ v, x, h, L, btn, area, send }: Tools): Node[] {
  const f = v.form;
  if (!f) return [];
  const cancel = btn(L("cancel"), () => (v.form = undefined, x.render(v)));
  if (typeof f === "object") {
    const go = () =>
      send("new", "POST", v.cfg.comments, {
        page: location.pathname,
        anchor: f,
      });
    return [
      h("p", { class: "q" }, f.quote),
      area("new", L("comment"), go),
      h("div", { class: "a" }, cancel, btn(L("comment"), go, true)),
    ];
  }
  const go = () => send("note", "POST", v.cfg.approve, { verdict: f });
  return [
    h("label", {}, L("note"), area("note", L("note"), go)),
    h(
      "div",
      { class: "a" },
      cancel,
      btn(L(f === "approved" ? "approve" : "ask"), go, true),
    ),
  ];
}

/** Opens (or with no `id` closes) the reply or edit box `k`, focused. */
function open(
  { v, x }: Tools,
  k: "replying" | "editing",
  id?: string,
  text?: string,
): void {
  v[k] = id;
  if (text !== undefined) v.drafts.set("e:" + id, text);
  x.render(v);
  v.root.querySelector<HTMLElement>(`[data-k="${k[0]}:${id}"]`)?.focus();
}

/** One comment: author, time, text; Edit and Delete on one's own. */
function comment(o: Tools, c: Comment): HTMLElement {
  const { v, x, h, L, btn, area, send, item } = o;
  const edit = () => send("e:" + c.id, "PATCH", item(c.id), {});
  const mine = c.author.name === v.me.name && c.author.kind === v.me.kind &&
    !c.deleted;
  const remove = () =>
    confirm(L("confirmRemove")) && x.call(v, "DELETE", item(c.id));
  return h(
    "div",
    { class: "c" },
    h("b", {}, c.author.name),
    h("span", { class: "m" }, ` · ${o.when(c.created)}`),
    c.edited ? L("edited") : "",
    ...v.editing === c.id
      ? [
        area("e:" + c.id, L("edit"), edit),
        h(
          "div",
          { class: "a" },
          btn(L("cancel"), () => open(o, "editing")),
          btn(L("save"), edit, true),
        ),
      ]
      : [
        h("p", {}, c.deleted ? L("deleted") : c.text),
        ...mine
          ? [h(
            "div",
            { class: "a" },
            btn(L("edit"), () => open(o, "editing", c.id, c.text)),
            btn(L("remove"), remove),
          )]
          : [],
      ],
  );
}

/** One thread: its quote (jumps to it) or "detached", comments, actions. */
function thread(o: Tools, t: Thread): HTMLElement {
  const { v, x, h, L, btn, area, send, item } = o;
  const { resolved, anchor } = t.head;
  const reply = () =>
    send("r:" + t.id, "POST", v.cfg.comments, {
      page: location.pathname,
      anchor,
      thread: t.id,
    });
  const quote = h("button", { class: "q" }, `“${anchor.quote}”`);
  quote.onclick = () => x.jump(v, t.id);
  const actions = v.replying === t.id
    ? [
      area("r:" + t.id, L("reply"), reply),
      h(
        "div",
        { class: "a" },
        btn(L("cancel"), () => open(o, "replying")),
        btn(L("send"), reply, true),
      ),
    ]
    : [h(
      "div",
      { class: "a" },
      btn(L("reply"), () => open(o, "replying", t.id)),
      btn(
        L(resolved ? "reopen" : "resolve"),
        () => x.call(v, "PATCH", item(t.id), { resolved: !resolved }),
      ),
    )];
  return h(
    "li",
    { class: t.id === v.active ? "on" : "", "data-t": t.id },
    ...t.at ? [quote] : [
      h("p", { class: "m" }, L("detached")),
      h("p", { class: "q" }, anchor.quote),
    ],
    ...[t.head, ...t.replies].map((c) => comment(o, c)),
    ...resolved
      ? [h("p", { class: "m" }, L("resolved", { name: resolved.by }))]
      : [],
    ...actions,
  );
}
