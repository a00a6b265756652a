/**
 * The in-place editing session started by `mountCms()`: fields, dirty
 * tracking, drafts, saving and the edit bar.
 *
 * @module
 */

import { type BarState, createBar } from "./bar.ts";
import { type CmsConfig, readConfig } from "./config.ts";
import type { Kit } from "./dom.ts";
import { clearDraft, readDrafts, writeDraft } from "./drafts.ts";
import { findMarkers, type Marker } from "./markers.ts";
import { makePlain, plainEvents } from "./regions.ts";
import type { RichTextController } from "./rich.ts";
import { saveField } from "./save.ts";

/** Options of `mountCms`: page config overrides, plus the save concurrency. */
export interface MountOptions extends Partial<CmsConfig> {
  /** Maximum concurrent save requests. Default 6 (the HTTP/1.1 per-host cap of browsers). */
  concurrency?: number;
}

/** A mounted editing session. */
export interface CmsHandle {
  /** Number of fields (duplicate markers count once). 0 when nothing mounted. */
  readonly fields: number;
  /** Resolves once regions, rich editors and restored drafts are in place. */
  readonly ready: Promise<void>;
  /** Saves every changed field; resolves when all requests are answered. */
  save(): Promise<void>;
  /** Restores the page's regions, removes the edit bar and all listeners. */
  unmount(): void;
}

interface Field extends Marker {
  els: HTMLElement[];
  /** Rich editors by region index (rich fields only). */
  editors?: RichTextController[];
  /** The stored value the edits are compared against. */
  base: string;
  value: string;
  /** Set while saving, or after a failed save (with `reason`). Else the
   * field is dirty or clean: `value` against `base`. */
  state?: "saving" | "error";
  reason?: string;
}

/** "1 unsaved change", "2 unsaved changes". */
const changes = (n: number) => `${n} unsaved change${n > 1 ? "s" : ""}`;

/** Dispatches a `cms:*` event on `document`. */
function emit(name: string, detail: unknown): void {
  document.dispatchEvent(new CustomEvent(name, { detail }));
}

// Marks of regions whose field is not clean. A constructed stylesheet on
// the document, added while mounted; it only matches our own attribute.
const MARKS =
  `[data-cms-state]{outline-offset:3px}[data-cms-state=dirty],[data-cms-state=saving]{outline:2px dashed #d92!important}[data-cms-state=error]{outline:2px solid #f55!important}`;

/** Marks a region with its field's state, or removes the marks. */
function markRegion(el: HTMLElement, state?: string): void {
  if (state) el.dataset.cmsState = state;
  else delete el.dataset.cmsState;
  if (state === "error") el.setAttribute("aria-invalid", "true");
  else el.removeAttribute("aria-invalid");
}

/**
 * Starts editing the page's markers (this chunk is loaded by `mountCms` only
 * when the page has a marker). Returns `null` when no marker is valid.
 */
export function mount(kit: Kit, options: MountOptions): CmsHandle | null {
  const found = findMarkers();
  if (!found.length) return null;
  const { listen, sheet } = kit;
  const cfg = readConfig(options);
  const fields = new Map<string, Field>();
  for (const marker of found) {
    const el = marker.el;
    const f = fields.get(marker.id);
    if (!f) {
      // The marker becomes the field (no copy: mount is on the hot path).
      const field = marker as Field;
      field.els = [el];
      field.base = field.value = marker.rich
        ? el.innerHTML.trim()
        : el.textContent ?? "";
      fields.set(marker.id, field);
    } else if (f.rich !== marker.rich) {
      console.warn("cms: duplicate marker of another kind", el);
    } else f.els.push(el);
  }
  const list = [...fields.values()];
  const dirtyFields = () => list.filter((f) => f.value !== f.base);
  const marks = sheet(MARKS);
  const adopted = () => document.adoptedStyleSheets;
  const cleanups: (() => void)[] = [
    () => document.adoptedStyleSheets = adopted().filter((s) => s !== marks),
  ];
  let alive = true;
  let unguard: (() => void) | undefined;
  const guard = (e: Event) => e.preventDefault();

  const changed = (f: Field, value: string, from = -1) => {
    const wasDirty = f.value !== f.base;
    f.value = value;
    f.els.forEach((el, i) => {
      const editor = f.editors?.[i];
      if (i === from) return;
      if (!f.rich) {
        if (el.textContent !== value) el.textContent = value;
      } else if (editor && editor.value !== value) editor.value = value;
    });
    const dirty = value !== f.base;
    // Back to the stored value clears an error; an edit keeps it.
    if (!dirty && f.state !== "saving") f.state = undefined;
    writeDraft(f);
    if (dirty !== wasDirty) emit("cms:dirty", { field: f.id, value, dirty });
    render(f);
  };

  const bar = createBar(kit, cfg.editor, {
    save: () => void save(),
    settings: () => emit("cms:open-drawer", { editor: cfg.editor }),
    done,
  });

  /** Updates the bar, and the marks of `f`'s regions when given. */
  function render(f?: Field) {
    const dirty = dirtyFields().length;
    const failed = list.find((f) => f.state === "error");
    const [state, text]: [BarState, string] = !navigator.onLine
      ? ["offline", "Offline: changes are kept here"]
      : list.some((f) => f.state === "saving")
      ? ["saving", "Saving…"]
      : failed
      ? ["error", `Not saved: ${failed.reason}`]
      : dirty
      ? ["unsaved", changes(dirty)]
      : ["clean", "All changes saved"];
    bar.status(state, text);
    // The unload guard exists only while something is dirty (bfcache stays
    // usable, and registering it is not free).
    if (dirty) unguard ??= listen(window, "beforeunload", guard);
    else if (unguard) unguard = void unguard();
    const mark = f && (f.state ?? (f.value !== f.base ? "dirty" : "clean"));
    // The marks stylesheet is adopted at the first mark, not at mount: a
    // document stylesheet makes the page recompute every style.
    if (mark && !adopted().includes(marks)) {
      document.adoptedStyleSheets = [...adopted(), marks];
    }
    f?.els.forEach((el) => markRegion(el, mark));
  }

  async function saveOne(f: Field): Promise<void> {
    const { id, collection, key, field, version, value } = f;
    f.state = "saving";
    render(f);
    const r = await saveField(cfg.save, {
      collection,
      key,
      field,
      value,
      version,
    });
    if (!alive) return;
    let conflict: { value?: unknown; version?: string } | undefined;
    try {
      if (r.status === 409) conflict = JSON.parse(r.text);
    } catch { /* not the conflict JSON: a plain error */ }
    f.state = "error";
    if (r.status >= 200 && r.status < 300) {
      rebase(f, value, version && r.version);
      f.state = undefined;
      writeDraft(f);
      emit("cms:saved", { field: id, value, version: r.version });
    } else if (conflict) {
      const stored = typeof conflict.value === "string" ? conflict.value : "";
      f.reason = "changed elsewhere";
      emit("cms:conflict", {
        field: id,
        value: f.value,
        stored,
        version: conflict.version,
      });
      void resolve(f, stored, conflict.version);
    } else {
      f.reason = r.text.trim().slice(0, 200) || `HTTP ${r.status}`;
      emit("cms:error", {
        field: id,
        value,
        status: r.status,
        reason: f.reason,
      });
    }
    render(f);
  }

  /** The stored value is now `base` (at `version`): move the draft along. */
  function rebase(f: Field, base: string, version?: string) {
    clearDraft(f);
    f.base = base;
    if (version) {
      f.version = version;
      for (const el of f.els) el.dataset.cmsVersion = version;
    }
  }

  async function resolve(f: Field, stored: string, version?: string) {
    const choice = await bar.conflict(f.id, f.value, stored);
    if (!alive || choice === "cancel") return;
    rebase(f, stored, version);
    if (choice === "mine") {
      changed(f, f.value);
      await saveOne(f);
    } else changed(f, stored);
  }

  /** Saves the changed fields, at most `concurrency` requests at a time. */
  async function save() {
    const todo = dirtyFields().filter((f) => f.state !== "saving");
    const worker = async () => {
      for (let f; (f = todo.shift());) await saveOne(f);
    };
    await Promise.all(Array.from({ length: options.concurrency ?? 6 }, worker));
  }

  function done() {
    const dirty = dirtyFields();
    if (dirty.length && !confirm("Discard your unsaved changes?")) return;
    dirty.forEach(clearDraft);
    unmount();
    location.assign(cfg.exit);
  }

  function unmount() {
    if (!alive) return;
    alive = false;
    unguard?.();
    for (const fn of cleanups.splice(0).reverse()) fn();
    for (const f of list) {
      f.editors?.forEach((e) => e?.destroy());
      f.els.forEach((el) => markRegion(el));
    }
    bar.destroy();
  }

  // Regions: one set of delegated listeners for all plain regions.
  const rich: [Field, number][] = [];
  const where = new Map<Element, Field>();
  /** The region an event target belongs to (targets may be inner elements). */
  const regionOf = (target: EventTarget | null) => {
    const el = (target as Element | null)?.closest?.("[data-cms-field]");
    return el && where.has(el) ? el as HTMLElement : undefined;
  };
  for (const f of list) {
    f.els.forEach((el, i) => {
      where.set(el, f);
      if (f.rich) rich.push([f, i]);
      else cleanups.push(makePlain(kit, el));
    });
  }
  cleanups.push(
    ...plainEvents(
      kit,
      (target) => {
        const el = regionOf(target);
        return el && !where.get(el)!.rich ? el : undefined;
      },
      (el) => {
        const f = where.get(el)!;
        changed(f, el.textContent ?? "", f.els.indexOf(el));
      },
    ),
    listen<KeyboardEvent>(document, "keydown", (k) => {
      const el = regionOf(k.target);
      if ((k.ctrlKey || k.metaKey) && k.key.toLowerCase() === "s") {
        k.preventDefault();
        void save();
      } else if (k.key === "Escape" && el) {
        const f = where.get(el)!;
        changed(f, f.base);
      }
    }, true),
    listen(window, "online", () => render()),
    listen(window, "offline", () => render()),
  );

  const ready = (async () => {
    if (rich.length) {
      const { attachRich } = await import("./rich.ts");
      if (!alive) return;
      for (const [f, i] of rich) {
        (f.editors ??= [])[i] = attachRich(kit, f.els[i], {
          media: cfg.media,
          label: f.field,
          onChange: (value) => changed(f, value, i),
          onError: (status, reason) =>
            emit("cms:error", { field: f.id, status, reason, upload: true }),
        });
      }
    }
    restoreDrafts();
  })();

  function restoreDrafts() {
    const drafts = readDrafts();
    const restored = drafts && list.filter((f) => {
      const draft = drafts(f);
      if (draft !== undefined) changed(f, draft);
      return draft !== undefined;
    });
    if (restored?.[0]) {
      bar.notice(
        `Restored ${changes(restored.length)}.`,
        () => restored.forEach((f) => changed(f, f.base)),
      );
    }
  }

  render();
  return { fields: list.length, ready, save, unmount };
}
