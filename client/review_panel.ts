/**
 * The review panel's content, rendered whole from the view's state (part of
 * the review chunk; `review.ts` keeps focus and typed text across renders):
 * the header (review link, show resolved, close), the refusal line, the
 * verdicts, a reviewer's name form, the top form (a new thread on the
 * selection, or a verdict's note) and the threads.
 *
 * @module
 */

import type {
  Approval,
  Comment,
  ReviewLinkAnswer,
} from "../core/protocol/review.ts";
import { labels } from "./labels.ts";
import type { View } from "./review.ts";
import type { L as Label } from "./review_labels.ts";
import type { Thread } from "./review_model.ts";

/** What the panel calls back into the view. */
export interface PanelActions {
  call(
    v: View,
    method: string,
    url: string,
    body?: unknown,
  ): Promise<Response | undefined>;
  jump(v: View, id: string): void;
  toggle(v: View, open: boolean): void;
  render(v: View): void;
  /** Opens a reviewer's event stream (once named: the cookie admits it). */
  stream(v: View): void;
  /** The review labels (so this chunk does not ship them again). */
  L: typeof Label;
  /** A verdict's line. */
  said(a: Approval, gone?: boolean): string;
}

/** The panel's nodes for the view's state. */
export function renderPanel(v: View, x: PanelActions): Node[] {
  const { L } = x;
  const { h } = v.kit, { cfg } = v;
  const page = location.pathname;
  const btn = (label: string, run: () => unknown, primary?: boolean) => {
    const b = h("button", primary ? { class: "p" } : {}, label);
    b.onclick = () => void run();
    return b;
  };
  const area = (k: string, label: string, go: () => unknown) => {
    const a = h("textarea", { "data-k": k, "aria-label": label, rows: "3" });
    a.value = v.drafts.get(k) ?? "";
    a.oninput = () => v.drafts.set(k, a.value);
    a.onkeydown = (e) =>
      e.key === "Enter" && (e.ctrlKey || e.metaKey) && void go();
    return a;
  };
  /** Sends the text typed under `k`; clears it and `after` on success. */
  const send = (k: string, method: string, url: string, body: object) => {
    const text = v.drafts.get(k)?.trim();
    if (!text && k !== "note") return;
    return x.call(v, method, url, { ...body, [k == "note" ? k : "text"]: text })
      .then((ok) =>
        ok &&
        (v.drafts.delete(k),
          k == "note" || k == "new"
            ? v.form = undefined
            : v.replying = v.editing = undefined)
      );
  };
  const item = (id: string) => `${cfg.comments}/${encodeURIComponent(id)}`;
  const time = new Intl.DateTimeFormat(labels.lang, {
    dateStyle: "medium",
    timeStyle: "short",
  });
  const when = (iso: string) => time.format(Date.parse(iso));
  const all = h("input", { type: "checkbox" });
  all.checked = !!v.all;
  all.onchange = () => (v.all = all.checked, x.render(v));
  const head = [
    h("h2", { tabindex: "-1" }, L("title")),
    h(
      "div",
      { class: "a" },
      ...cfg.review && !cfg.reviewer
        ? [btn(L("link"), async () => {
          const res = await x.call(v, "POST", cfg.review, { page });
          if (res) v.link = await res.json() as ReviewLinkAnswer, x.render(v);
        })]
        : [],
      h("label", { class: "c" }, all, L("showResolved")),
      btn(L("close"), () => x.toggle(v, false)),
    ),
    h("p", { class: "e", role: "alert" }, v.error ?? ""),
    ...v.link ? linkBox(v, v.link, when(v.link.expires), L) : [],
    h(
      "ul",
      {},
      ...v.data.approvals.slice(-3).reverse().map((a) =>
        h("li", { class: "m" }, x.said(a))
      ),
    ),
  ];
  if (!v.me.name) {
    const name = h("input", {
      type: "text",
      "data-k": "name",
      maxlength: "80",
    });
    const go = async () => {
      const n = name.value.trim();
      if (
        n &&
        await x.call(
          v,
          "POST",
          cfg.reviewName,
          { name: n, page },
        )
      ) v.me.name = n, x.render(v), x.stream(v);
    };
    name.onkeydown = (e) => e.key === "Enter" && void go();
    return [
      ...head,
      h("label", {}, L("name"), name),
      h("p", { class: "m" }, L("nameHint")),
      h("div", { class: "a" }, btn(L("go"), go, true)),
    ];
  }
  const f = v.form,
    cancel = btn(L("cancel"), () => (v.form = undefined, x.render(v)));
  const top = typeof f === "object"
    ? [
      h("p", { class: "q" }, f.quote),
      area("new", L("comment"), () => go()),
      h("div", { class: "a" }, cancel, btn(L("comment"), () => go(), true)),
    ]
    : f
    ? [
      h("label", {}, L("note"), area("note", L("note"), () => go())),
      h(
        "div",
        { class: "a" },
        cancel,
        btn(L(f === "approved" ? "approve" : "ask"), () => go(), true),
      ),
    ]
    : [];
  const go = () =>
    typeof f === "object"
      ? send("new", "POST", cfg.comments, { page, anchor: f })
      : send(
        "note",
        "POST",
        cfg.approve,
        { verdict: f },
      );
  const shown = v.list.filter((t) => v.all || !t.head.resolved);
  return [
    ...head,
    ...top,
    shown.length
      ? h(
        "ul",
        {},
        ...shown.map((t) => thread(v, t, x, { btn, area, send, item, when })),
      )
      : h("p", { class: "m" }, L("none")),
  ];
}

/** The review link just made, with Copy. */
function linkBox(
  { kit: { h } }: View,
  link: ReviewLinkAnswer,
  when: string,
  L: typeof Label,
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

/** The panel's helpers a thread uses. */
interface Tools {
  btn(label: string, run: () => unknown, primary?: boolean): HTMLElement;
  area(k: string, label: string, go: () => unknown): HTMLElement;
  send(k: string, method: string, url: string, body: object): unknown;
  item(id: string): string;
  /** A time in the UI's language (one formatter per render: 200 comments
   * with a formatter each would take longer than the rest). */
  when(iso: string): string;
}

/** One thread: its quote (jumps to it) or "detached", comments, actions. */
function thread(v: View, t: Thread, x: PanelActions, o: Tools): HTMLElement {
  const { L } = x;
  const { h } = v.kit, { btn, area, send, item } = o;
  const set = (k: "replying" | "editing", id?: string, text?: string) => {
    v[k] = id;
    if (text !== undefined) v.drafts.set("e:" + id, text);
    x.render(v);
    v.root.querySelector<HTMLElement>(
      `[data-k="${k[0] == "r" ? "r:" : "e:"}${id}"]`,
    )?.focus();
  };
  const comment = (c: Comment) => {
    const edit = () => send("e:" + c.id, "PATCH", item(c.id), {});
    const mine = c.author.name === v.me.name &&
      c.author.kind === v.me.kind && !c.deleted;
    return h(
      "div",
      { class: "c" },
      h("b", {}, c.author.name),
      h(
        "span",
        { class: "m" },
        ` · ${o.when(c.created)}${c.edited ? L("edited") : ""}`,
      ),
      ...v.editing === c.id
        ? [
          area("e:" + c.id, L("edit"), edit),
          h(
            "div",
            { class: "a" },
            btn(L("cancel"), () => set("editing")),
            btn(L("save"), edit, true),
          ),
        ]
        : [
          h("p", {}, c.deleted ? L("deleted") : c.text),
          ...mine
            ? [h(
              "div",
              { class: "a" },
              btn(L("edit"), () => set("editing", c.id, c.text)),
              btn(L("remove"), () =>
                confirm(L("confirmRemove")) && x.call(v, "DELETE", item(c.id))),
            )]
            : [],
        ],
    );
  };
  const reply = () =>
    send("r:" + t.id, "POST", v.cfg.comments, {
      page: location.pathname,
      anchor: t.head.anchor,
      thread: t.id,
    });
  const { resolved, anchor } = t.head;
  const quote = h("button", { class: "q" }, `“${anchor.quote}”`);
  quote.onclick = () => x.jump(v, t.id);
  return h(
    "li",
    { class: t.id === v.active ? "on" : "", "data-t": t.id },
    ...t.at ? [quote] : [
      h("p", { class: "m" }, L("detached")),
      h("p", { class: "q" }, anchor.quote),
    ],
    ...[t.head, ...t.replies].map(comment),
    ...resolved
      ? [h("p", { class: "m" }, L("resolved", { name: resolved.by }))]
      : [],
    ...v.replying === t.id
      ? [
        area("r:" + t.id, L("reply"), reply),
        h(
          "div",
          { class: "a" },
          btn(L("cancel"), () => set("replying")),
          btn(L("send"), reply, true),
        ),
      ]
      : [h(
        "div",
        { class: "a" },
        btn(L("reply"), () => set("replying", t.id)),
        btn(
          L(resolved ? "reopen" : "resolve"),
          () => x.call(v, "PATCH", item(t.id), { resolved: !resolved }),
        ),
      )],
  );
}
