/**
 * Publish mode `draft` in the editor (a lazy chunk, loaded when the page
 * config names a `publish` endpoint): marks the regions of fields with an
 * unpublished draft, and gives the edit bar Publish (with the count) and
 * Discard. Publish sends this page's drafted fields with the versions the
 * editor sees, so a draft someone else changed is a 409, never published
 * over.
 *
 * @module
 */

import type {
  DiscardBody,
  DraftsListing,
  PublishAnswer,
  PublishBody,
} from "../core/wire.ts";
import type { EditBar } from "./bar.ts";
import type { Kit } from "./dom.ts";
import { t } from "./labels.ts";

/** A field of the page: its address and regions. */
export interface PublishField {
  /** The address, e.g. `pages:home:title`. */
  id: string;
  /** Its regions (they carry `data-cms-version`). */
  els: HTMLElement[];
}

/** The draft marks; the mark's word comes from the labels table. */
const mark = (word: string) =>
  `[data-cms-draft]{outline:2px dotted #16e;outline-offset:3px}[data-cms-draft]::after{content:${
    JSON.stringify(word)
  };font:11px system-ui;color:#16e;margin-left:6px}`;

/**
 * Wires drafts into the session; returns the cleanup. `endpoint` is the
 * publish URL; `drafts` and `discard` are its siblings.
 */
export function attachPublish(
  kit: Kit,
  bar: EditBar,
  endpoint: string,
  fields: PublishField[],
): () => void {
  const url = (name: string) => new URL(name, new URL(endpoint, location.href));
  const byId = new Map(fields.map((f) => [f.id, f]));
  const drafted = new Set<string>();
  const sheet = kit.sheet(mark(t("draftMark")));
  document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
  const headers = { "Content-Type": "application/json" };
  let removers: (() => void)[] = [];

  function setMark(id: string, on: boolean) {
    if (on) drafted.add(id);
    else drafted.delete(id);
    byId.get(id)?.els.forEach((el) => {
      if (on) el.dataset.cmsDraft = "";
      else delete el.dataset.cmsDraft;
    });
  }

  function render() {
    removers.forEach((r) => r());
    removers = [];
    if (!drafted.size) return;
    removers.push(
      bar.add({
        label: t("publish", { n: drafted.size }),
        icon: "done",
        run: () => void publish(),
      }),
      bar.add({ label: t("discardDrafts"), run: () => void discard() }),
    );
  }

  async function publish() {
    const list = [...drafted];
    const versions: Record<string, string> = {};
    for (const id of list) {
      const v = byId.get(id)?.els[0]?.dataset.cmsVersion;
      if (v) versions[id] = v;
    }
    bar.status("saving", t("publishing"));
    const res = await fetch(url("publish"), {
      method: "POST",
      headers,
      body: JSON.stringify({ fields: list, versions } satisfies PublishBody),
    }).catch(() => null);
    if (res?.ok) {
      const { published } = await res.json() as PublishAnswer;
      published.forEach((id) => setMark(id, false));
      bar.status("clean", t("published", { n: published.length }));
    } else if (res?.status === 409) {
      bar.status("error", t("notPublishedConflict"));
    } else {
      const reason = res ? await res.text() : t("offlineReason");
      bar.status("error", t("notPublished", { reason }));
    }
    render();
  }

  async function discard() {
    if (!confirm(t("confirmDiscardDrafts", { n: drafted.size }))) return;
    for (const id of [...drafted]) {
      const res = await fetch(url("discard"), {
        method: "POST",
        headers,
        body: JSON.stringify({ field: id } satisfies DiscardBody),
      }).catch(() => null);
      if (!res?.ok) {
        bar.status("error", t("notDiscarded"));
        return render();
      }
      setMark(id, false);
    }
    // Show the published values again.
    location.reload();
  }

  const off = kit.listen<CustomEvent<{ field: string }>>(
    document,
    "cms:saved",
    ({ detail }) => {
      setMark(detail.field, true);
      render();
    },
  );
  (async () => {
    const res = await fetch(url("drafts")).catch(() => null);
    if (!res?.ok) return;
    const { drafts } = await res.json() as DraftsListing;
    for (const d of drafts) if (byId.has(d.field)) setMark(d.field, true);
    render();
  })();

  return () => {
    off();
    removers.forEach((r) => r());
    for (const id of [...drafted]) setMark(id, false);
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((s) =>
      s !== sheet
    );
  };
}
