/**
 * The in-place editing session started by `mountCms()`: fields, dirty
 * tracking, drafts, saving and the edit bar.
 *
 * @module
 */

import { type BarState, createBar } from "./bar.ts";
import { type CmsConfig, readConfig } from "./config.ts";
import { emit } from "./dom.ts";
import { clearDraft, hasDrafts, readDraft, writeDraft } from "./drafts.ts";
import { findMarkers, type Marker } from "./markers.ts";
import { makePlain, plainEvents } from "./regions.ts";
import type { RichTextController } from "./rich.ts";
import { pool, saveField, type SaveResult } from "./save.ts";

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

type FieldState = "clean" | "dirty" | "saving" | "error";

interface Field {
  marker: Marker;
  els: HTMLElement[];
  /** Rich editors by region index (rich fields only). */
  editors?: RichTextController[];
  /** The stored value the edits are compared against. */
  base: string;
  value: string;
  version?: string;
  state: FieldState;
  reason?: string;
}

/**
 * Starts editing the page's markers (this chunk is loaded by `mountCms` only
 * when the page has a marker). Returns `null` when no marker is valid.
 */
export function mount(options: MountOptions = {}): CmsHandle | null {
  const found = findMarkers();
  if (!found.length) return null;
  return start(found, readConfig(options), options.concurrency ?? 6);
}

function start(
  found: Marker[],
  cfg: CmsConfig,
  concurrency: number,
): CmsHandle {
  const fields = new Map<string, Field>();
  for (const marker of found) {
    const el = marker.el;
    const f = fields.get(marker.id);
    if (!f) {
      const value = marker.kind === "rich"
        ? el.innerHTML.trim()
        : el.textContent ?? "";
      fields.set(marker.id, {
        marker,
        els: [el],
        base: value,
        value,
        version: marker.version,
        state: "clean",
      });
    } else if (f.marker.kind !== marker.kind) {
      console.warn("cms: marker kind differs from its duplicate", el);
    } else f.els.push(el);
  }
  const list = [...fields.values()];
  const cleanups: (() => void)[] = [];
  const outlines = new Map<HTMLElement, [string, string]>();
  let alive = true;
  let guarded = false;
  const guard = (e: Event) => e.preventDefault();

  const on = <K extends string>(
    target: EventTarget,
    type: K,
    fn: (e: Event) => void,
    capture = false,
  ) => {
    target.addEventListener(type, fn, capture);
    cleanups.push(() => target.removeEventListener(type, fn, capture));
  };

  const write = (f: Field, value: string, except = -1) => {
    f.els.forEach((el, i) => {
      if (i === except) return;
      if (f.marker.kind === "plain") {
        if (el.textContent !== value) el.textContent = value;
      } else if (f.editors?.[i] && f.editors[i].value !== value) {
        f.editors[i].value = value;
      }
    });
  };

  const persist = (f: Field) => {
    if (f.value !== f.base) writeDraft(f.marker.id, f.version, f.base, f.value);
    else clearDraft(f.marker.id, f.version);
  };

  const changed = (f: Field, value: string, from = -1) => {
    const wasDirty = f.value !== f.base;
    f.value = value;
    write(f, value, from);
    const dirty = value !== f.base;
    if (f.state !== "saving") {
      if (!dirty) f.state = "clean", f.reason = undefined;
      else if (f.state === "clean") f.state = "dirty";
    }
    persist(f);
    if (dirty !== wasDirty) {
      emit("cms:dirty", { field: f.marker.id, value, dirty });
    }
    render(f);
  };

  const bar = createBar(cfg.editor, {
    save: () => void save(),
    settings: () => emit("cms:open-drawer", { editor: cfg.editor }),
    done,
  });

  /** Updates the bar, and the marks of `f`'s regions when given. */
  function render(f?: Field) {
    let state: BarState = "clean", text = "All changes saved";
    const dirty = list.filter((f) => f.value !== f.base).length;
    const failed = list.filter((f) => f.state === "error");
    if (!navigator.onLine) {
      state = "offline";
      text = "Offline: changes are kept in this browser";
    } else if (list.some((f) => f.state === "saving")) {
      state = "saving";
      text = "Saving…";
    } else if (failed.length) {
      state = "error";
      text = `Not saved: ${failed[0].reason}` +
        (failed.length > 1 ? ` (${failed.length} fields)` : "");
    } else if (dirty) {
      state = "unsaved";
      text = dirty === 1 ? "1 unsaved change" : `${dirty} unsaved changes`;
    }
    bar.status(state, text);
    // The unload guard exists only while something is dirty (bfcache stays
    // usable, and registering it is not free).
    if (!dirty !== !guarded) {
      if (dirty) addEventListener("beforeunload", guard);
      else removeEventListener("beforeunload", guard);
      guarded = dirty > 0;
    }
    if (f) {
      for (const el of f.els) {
        const style = el.style;
        if (!outlines.has(el)) {
          outlines.set(el, [style.outline, style.outlineOffset]);
        }
        el.dataset.cmsState = f.state;
        const [outline, offset] = outlines.get(el)!;
        style.outline = f.state === "error"
          ? "2px solid #cf222e"
          : f.state === "clean"
          ? outline
          : "2px dashed #d29922";
        style.outlineOffset = f.state === "clean" ? offset : "3px";
        if (f.state === "error") el.setAttribute("aria-invalid", "true");
        else el.removeAttribute("aria-invalid");
      }
    }
  }

  async function saveOne(f: Field): Promise<void> {
    const sent = f.value;
    f.state = "saving";
    render(f);
    const { collection, key, field } = f.marker;
    const r: SaveResult = await saveField(cfg.save, {
      collection,
      key,
      field,
      value: sent,
      ...(f.version !== undefined ? { version: f.version } : {}),
    });
    if (!alive) return;
    if (r.ok) {
      rebase(f, sent, f.version !== undefined ? r.version : undefined);
      f.state = f.value === f.base ? "clean" : "dirty";
      f.reason = undefined;
      persist(f);
      emit("cms:saved", {
        field: f.marker.id,
        value: sent,
        version: r.version,
      });
    } else if (r.conflict) {
      f.state = "error";
      f.reason = "changed elsewhere";
      emit("cms:conflict", {
        field: f.marker.id,
        value: f.value,
        stored: r.value,
        version: r.version,
      });
      void resolve(f, r.value, r.version);
    } else {
      f.state = "error";
      f.reason = r.reason;
      emit("cms:error", {
        field: f.marker.id,
        value: sent,
        status: r.status,
        reason: r.reason,
      });
    }
    render(f);
  }

  /** The stored value is now `base` (at `version`): move the draft along. */
  function rebase(f: Field, base: string, version?: string) {
    clearDraft(f.marker.id, f.version);
    f.base = base;
    if (version) {
      f.version = version;
      for (const el of f.els) el.dataset.cmsVersion = version;
    }
  }

  async function resolve(f: Field, stored: string, version?: string) {
    const choice = await bar.conflict(f.marker.id, f.value, stored);
    if (!alive || choice === "cancel") return;
    rebase(f, stored, version);
    if (choice === "mine") {
      changed(f, f.value);
      await saveOne(f);
    } else changed(f, stored);
  }

  async function save() {
    const todo = list.filter((f) => f.value !== f.base && f.state !== "saving");
    await pool(todo, concurrency, saveOne);
  }

  function done() {
    const dirty = list.filter((f) => f.value !== f.base);
    if (dirty.length && !confirm("Discard your unsaved changes?")) return;
    for (const f of dirty) clearDraft(f.marker.id, f.version);
    unmount();
    location.assign(cfg.exit);
  }

  function unmount() {
    if (!alive) return;
    alive = false;
    for (const fn of cleanups.splice(0).reverse()) fn();
    removeEventListener("beforeunload", guard);
    for (const f of list) f.editors?.forEach((e) => e?.destroy());
    for (const [el, [outline, offset]] of outlines) {
      el.style.outline = outline;
      el.style.outlineOffset = offset;
      if (!el.getAttribute("style")) el.removeAttribute("style");
      delete el.dataset.cmsState;
      el.removeAttribute("aria-invalid");
    }
    bar.destroy();
  }

  // Regions: one set of delegated listeners for all plain regions.
  const rich: [Field, number][] = [];
  const where = new Map<Element, Field>();
  /** The region an event target belongs to (targets may be inner elements). */
  const regionOf = (target: EventTarget | null) => {
    const el = (target as Element | null)?.closest?.("[data-cms-field]");
    return el ? where.get(el) && el as HTMLElement : undefined;
  };
  const editable: [HTMLElement, string | null][] = [];
  for (const f of list) {
    f.els.forEach((el, i) => {
      where.set(el, f);
      if (f.marker.kind === "rich") rich.push([f, i]);
      else editable.push([el, makePlain(el)]);
    });
  }
  cleanups.push(() => {
    for (const [el, before] of editable) {
      if (before === null) el.removeAttribute("contenteditable");
      else el.setAttribute("contenteditable", before);
    }
  });
  cleanups.push(plainEvents(
    (target) => {
      const el = regionOf(target);
      return el && where.get(el)!.marker.kind === "plain" ? el : undefined;
    },
    (el) => {
      const f = where.get(el)!;
      changed(f, el.textContent ?? "", f.els.indexOf(el));
    },
  ));

  on(document, "keydown", (e) => {
    const k = e as KeyboardEvent;
    if ((k.ctrlKey || k.metaKey) && k.key.toLowerCase() === "s") {
      k.preventDefault();
      void save();
    } else if (k.key === "Escape" && regionOf(k.target)) {
      const f = where.get(regionOf(k.target)!)!;
      changed(f, f.base);
    }
  }, true);
  on(window, "online", () => render());
  on(window, "offline", () => render());

  const ready = (async () => {
    if (rich.length) {
      const { attachRich } = await import("./rich.ts");
      if (!alive) return;
      for (const [f, i] of rich) {
        (f.editors ??= [])[i] = attachRich(f.els[i], {
          media: cfg.media,
          label: f.marker.field,
          onChange: (value) => changed(f, value, i),
          onError: (status, reason) =>
            emit("cms:error", {
              field: f.marker.id,
              status,
              reason,
              upload: true,
            }),
        });
      }
    }
    restoreDrafts();
  })();

  function restoreDrafts() {
    const restored: Field[] = [];
    if (!hasDrafts()) return;
    for (const f of list) {
      const draft = readDraft(f.marker.id, f.version, f.base);
      if (draft !== undefined) {
        changed(f, draft);
        restored.push(f);
      }
    }
    if (!restored.length) return;
    const n = restored.length;
    bar.notice(
      `Restored ${n} unsaved change${n > 1 ? "s" : ""} from this browser.`,
      [
        {
          label: "Discard",
          run: () => {
            for (const f of restored) changed(f, f.base);
            bar.notice("");
          },
        },
        { label: "OK", run: () => bar.notice("") },
      ],
    );
  }

  render();
  return { fields: list.length, ready, save, unmount };
}
