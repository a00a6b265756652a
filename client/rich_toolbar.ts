/**
 * The rich text editor's view (part of the rich chunk): the ARIA formatting
 * toolbar (one tab stop, arrow keys move), the panel slot the lazy panels
 * show in, the file input, the upload progress and the status line.
 *
 * @module
 */

import type { IconName } from "./icons.ts";
import { t } from "./labels.ts";
import type { RichCore } from "./rich.ts";
import { images, insertImages } from "./rich_uploads.ts";

/** One toolbar button: icon, name, command or action, key shortcuts. */
type Item = [IconName, string, string | (() => unknown), string?];

const isHeading = () => document.queryCommandValue("formatBlock") === "h2";

/** The buttons of `ed`'s toolbar. */
function items(ed: RichCore): Item[] {
  return [
    ["bold", t("bold"), "bold"],
    ["italic", t("italic"), "italic"],
    ["link", t("link"), ed.link, "Control+K Meta+K"],
    [
      "heading",
      t("heading"),
      () => ed.exec("formatBlock", isHeading() ? "p" : "h2"),
    ],
    ["list", t("bulleted"), "insertUnorderedList"],
    ["ordered", t("numbered"), "insertOrderedList"],
    ["image", t("image"), ed.chooseImages],
    ["undo", t("undo"), () => ed.undo(-1), "Control+Z Meta+Z"],
    [
      "redo",
      t("redo"),
      () => ed.undo(1),
      "Control+Shift+Z Meta+Shift+Z Control+Y",
    ],
  ];
}

/**
 * Builds the toolbar and its companions into `ed.root` and gives `ed` its
 * view parts (show, close, pick, say, progress, chooseImages, refresh).
 * Returns the removers of its listeners.
 */
export function createToolbar(ed: RichCore, label: string): (() => void)[] {
  const { kit: { h, listen }, el, root } = ed;
  const file = h("input", {
    type: "file",
    accept: "image/*",
    multiple: "",
    hidden: "",
  });
  const progress = h("progress", {
    "aria-label": t("uploadProgress"),
    hidden: "",
  });
  const msg = h("span", { role: "status" });
  const slot = h("div", { hidden: "" });
  const toolbar = h("div", {
    role: "toolbar",
    "aria-label": t("formatting", { label }),
  });
  if (el.id) toolbar.setAttribute("aria-controls", el.id);
  root.append(h("div", { class: "w" }, toolbar, slot, file, progress, msg));
  let picked: ((f: File | undefined) => void) | undefined;
  Object.assign(ed, {
    show(panel: HTMLElement) {
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
  });
  ed.refresh = buttons(ed, toolbar);
  return [
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

/** Fills `toolbar` with the buttons; returns the pressed-state refresh. */
function buttons(ed: RichCore, toolbar: HTMLElement): () => void {
  const { kit: { h, Icon }, root } = ed;
  const toggles: [HTMLButtonElement, () => boolean][] = [];
  const refresh = () => {
    for (const [b, state] of toggles) {
      b.setAttribute("aria-pressed", String(state()));
    }
  };
  const list = items(ed).map(([icon, name, run, keys], i) => {
    // In a shadow root a button has no form: no `type` needed.
    const b = h("button", { "aria-label": name, tabindex: i ? "-1" : "0" });
    b.append(Icon(icon));
    if (keys) b.setAttribute("aria-keyshortcuts", keys);
    b.onmousedown = (e) => e.preventDefault();
    b.onclick = () => {
      ed.restore();
      if (typeof run === "string") ed.exec(run);
      else void run();
      refresh();
    };
    const state = typeof run === "string"
      ? () => document.queryCommandState(run)
      : icon === "heading"
      ? isHeading
      : undefined;
    if (state) {
      b.setAttribute("aria-pressed", "false");
      toggles.push([b, state]);
    }
    return b;
  });
  toolbar.append(...list);
  toolbar.onkeydown = (e) => {
    const i = list.indexOf(root.activeElement as HTMLButtonElement);
    const to = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: -1 }[
      e.key
    ];
    if (i < 0 || to === undefined) return;
    e.preventDefault();
    // Moves the toolbar's one tab stop to button `to` and focuses it.
    const n = list.length;
    list.forEach((b, j) => b.tabIndex = j === (to + n) % n ? 0 : -1);
    list[(to + n) % n].focus();
  };
  return refresh;
}
