/**
 * The rich text editor's view (part of the rich chunk): the ARIA formatting
 * toolbar (one tab stop, arrow keys move), the panel slot the lazy panels
 * show in, the file input, the upload progress and the status line.
 *
 * @module
 */

import type { IconName } from "./icons.ts";
import { type Labels, t } from "./labels.ts";
import {
  arrowTo,
  blockMenu,
  BLOCKS,
  codeAt,
  toggleCode,
} from "./rich_blocks.ts";
import type { RichCore } from "./rich_types.ts";
import { images, insertImages } from "./rich_uploads.ts";

/** One toolbar button: icon, name, command or action, key shortcuts,
 * pressed state (commands have theirs). */
type Item = [
  IconName,
  keyof Labels,
  string | (() => unknown),
  string?,
  (() => boolean)?,
];

const MAC = /Mac|iP(hone|ad)/.test(navigator.platform);

/**
 * The first shortcut of `keys` (an `aria-keyshortcuts` value) as people
 * read it on this system: "Ctrl+B", or "⌘B" on Apple keyboards.
 */
export function keyText(keys: string): string {
  const all = keys.split(" ");
  const key = (MAC && all.find((k) => k.startsWith("Meta"))) || all[0];
  const names: Record<string, string> = MAC
    ? { Control: "⌃", Meta: "⌘", Alt: "⌥", Shift: "⇧" }
    : { Control: "Ctrl" };
  return key.split("+").map((k) => names[k] ?? k).join(MAC ? "" : "+");
}

/** The buttons of `ed`'s toolbar; the block menu goes after index 3. */
function items(ed: RichCore): Item[] {
  return [
    ["bold", "bold", "bold", "Control+B Meta+B"],
    ["italic", "italic", "italic", "Control+I Meta+I"],
    [
      "code",
      "inlineCode",
      () => toggleCode(ed),
      "Control+E Meta+E",
      () => !!codeAt(ed),
    ],
    ["link", "link", ed.link, "Control+K Meta+K"],
    ["list", "bulleted", "insertUnorderedList"],
    ["ordered", "numbered", "insertOrderedList"],
    ["image", "image", ed.chooseImages],
    ["undo", "undo", () => ed.undo(-1), "Control+Z Meta+Z"],
    [
      "redo",
      "redo",
      () => ed.undo(1),
      "Control+Shift+Z Meta+Shift+Z Control+Y",
    ],
    ["keys", "shortcuts", ed.shortcuts, "Control+/ Meta+/"],
  ];
}

/** The toolbar's shortcuts, for the shortcuts panel. */
const shortcutList = (ed: RichCore) =>
  [
    ...items(ed).map(([, label, , keys]) => [label, keys]),
    ...BLOCKS.map(([, label, keys]) => [label, keys]),
  ].filter(([, keys]) => keys) as [keyof Labels, string][];

/**
 * Builds the toolbar and its companions into `ed.root` and gives `ed` its
 * view parts (show, close, pick, say, progress, chooseImages, refresh).
 * Returns the removers of its listeners.
 */
export function createToolbar(ed: RichCore, label: string): (() => void)[] {
  const { kit: { h, listen }, el, root } = ed;
  // `multiple` is set by whoever opens the picker (one image or many).
  const file = h("input", { type: "file", accept: "image/*", hidden: "" });
  const progress = h("progress", {
    "aria-label": t("uploadProgress"),
    hidden: "",
  });
  const msg = h("span", { class: "m", role: "status" });
  const slot = h("div", { class: "sl", hidden: "" });
  const toolbar = h("div", {
    role: "toolbar",
    "aria-label": t("formatting", { label }),
  });
  if (el.id) toolbar.setAttribute("aria-controls", el.id);
  // The region is outside the shadow root: an element reference reaches it.
  Object.assign(toolbar, { ariaControlsElements: [el] });
  const w = h("div", { class: "w k", hidden: "" }, toolbar, slot);
  w.append(file, progress, msg);
  root.append(w);
  let picked: ((f: File | undefined) => void) | undefined;
  Object.assign(ed, {
    show(panel: HTMLElement) {
      // Escape closes the panel, and goes no further (in the region it
      // would revert the field).
      panel.onkeydown = (e) => {
        if (e.key !== "Escape") return;
        e.stopPropagation();
        ed.close();
      };
      slot.replaceChildren(panel);
      slot.hidden = false;
    },
    close() {
      slot.hidden = true;
      slot.replaceChildren();
      ed.restore();
    },
    pick: () =>
      new Promise<File | undefined>((resolve) => {
        picked?.(undefined);
        picked = resolve;
        file.multiple = false;
        file.click();
      }),
    say: (text: string) => msg.textContent = text,
    progress(value?: number) {
      progress.hidden = value === undefined;
      if (value !== undefined) progress.value = value;
    },
    chooseImages() {
      file.multiple = true;
      file.click();
    },
    shortcuts: () =>
      void import("./shortcuts.ts").then((m) =>
        m.openShortcuts(ed, shortcutList(ed), keyText)
      ),
  });
  ed.refresh = buttons(ed, toolbar);
  return [
    ...floating(ed, w, slot),
    listen(file, "change", () => {
      const chosen = images(file.files);
      file.value = "";
      if (picked) picked(chosen[0]);
      else insertImages(ed, chosen);
      picked = undefined;
    }),
    listen(file, "cancel", () => picked = void picked?.(undefined)),
  ];
}

/** Hides the toolbar shown now (one at a time, whichever region). */
let shown: (() => void) | undefined;

/**
 * Shows the toolbar `w` while its region or the toolbar has focus (or a
 * panel is open), fixed above the region: below it when there is no room
 * above and the region is wholly in view, else at the window's top (so it
 * never covers what follows a long region); placed again when the region's
 * size changes.
 * Alt+F10 in the region focuses the toolbar; Escape in it goes back.
 */
function floating(ed: RichCore, w: HTMLElement, slot: HTMLElement) {
  const { el, root, kit: { listen } } = ed;
  const host = root.host;
  const place = () => {
    const r = el.getBoundingClientRect();
    const { offsetHeight: h, offsetWidth: wide } = w;
    let top = r.top - h - 4;
    // No room above: below a region that is wholly in view (a title at
    // the page's top), else pinned to the window's top, never over what
    // follows a long region (where the next click goes).
    if (top < 4) {
      top = r.top >= 0 && r.bottom + h + 4 < innerHeight ? r.bottom + 4 : 4;
    }
    w.style.top = `${top}px`;
    w.style.left = `${Math.max(4, Math.min(r.left, innerWidth - wide - 4))}px`;
  };
  // The region grows and shrinks as it is edited (an image loads, one is
  // replaced): the toolbar follows, never left over what it now covers.
  const resized = new ResizeObserver(place);
  const hide = () => {
    resized.disconnect();
    w.hidden = true;
    if (shown === hide) shown = undefined;
    removeEventListener("scroll", place, true);
    removeEventListener("resize", place);
  };
  const show = () => {
    if (shown !== hide) {
      shown?.();
      shown = hide;
      w.hidden = false;
      resized.observe(el);
      addEventListener("scroll", place, true);
      addEventListener("resize", place);
    }
    place();
  };
  const leave = (e: FocusEvent) => {
    const to = e.relatedTarget as Node | null;
    const open = !slot.hidden || root.querySelector("dialog[open]");
    if (!open && to !== host && !el.contains(to)) hide();
  };
  return [
    listen(el, "focusin", show),
    listen(el, "focusout", leave),
    listen(host, "focusout", leave),
    listen<KeyboardEvent>(el, "keydown", (e) => {
      if (!e.altKey || e.key !== "F10") return;
      e.preventDefault();
      show();
      w.querySelector<HTMLElement>("[role=toolbar] [tabindex='0']")?.focus();
    }),
    listen<KeyboardEvent>(w, "keydown", (e) => {
      if (e.key !== "Escape" || e.defaultPrevented) return;
      e.stopPropagation();
      ed.restore();
    }),
    hide,
  ];
}

/** Fills `toolbar` with the buttons; returns the pressed-state refresh. */
function buttons(ed: RichCore, toolbar: HTMLElement): () => void {
  const { kit: { h, Icon }, root } = ed;
  const toggles: [HTMLButtonElement, () => boolean][] = [];
  const stops = items(ed).map(([icon, key, run, keys, state]) => {
    const name = t(key);
    const b = h("button", {
      "aria-label": name,
      tabindex: "-1",
      "data-tip": keys ? `${name} (${keyText(keys)})` : name,
    });
    b.append(Icon(icon));
    if (keys) b.setAttribute("aria-keyshortcuts", keys);
    b.onclick = () => {
      ed.restore();
      if (typeof run === "string") ed.exec(run);
      else void run();
      refresh();
    };
    state ??= typeof run === "string"
      ? () => document.queryCommandState(run)
      : undefined;
    if (state) {
      b.setAttribute("aria-pressed", "false");
      toggles.push([b, state]);
    }
    return b;
  });
  const block = blockMenu(ed, keyText);
  const refresh = () => {
    for (const [b, state] of toggles) {
      b.setAttribute("aria-pressed", String(state()));
    }
    block.refresh();
  };
  toolbar.append(...stops);
  stops[4].before(block.wrap);
  // The arrow keys' stops, in order; the first holds the one tab stop.
  stops.splice(4, 0, block.button);
  stops[0].tabIndex = 0;
  // A press on the toolbar (or its menu) keeps the region's selection.
  toolbar.onmousedown = (e) => e.preventDefault();
  toolbar.onkeydown = (e) => {
    const to = arrowTo(e, stops, root, "ArrowLeft", "ArrowRight");
    if (!to) return;
    // Moves the toolbar's one tab stop to `to` and focuses it.
    stops.forEach((b) => b.tabIndex = b === to ? 0 : -1);
    to.focus();
  };
  return refresh;
}
