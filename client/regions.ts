/**
 * Plain text regions: single-line, plain-text editing of marker elements.
 *
 * @module
 */

import type { Kit } from "./dom.ts";

/** Collapses each run of white space holding a line break into one space. */
export function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]\s*/g, " ");
}

/**
 * Makes every element of `els` editable as plain text:
 * `contenteditable="plaintext-only"` where the engine supports it (others
 * throw on the unknown value), else `true`. Returns the one function that
 * restores each element's previous attribute.
 */
export function makePlain(els: HTMLElement[]): () => void {
  // Only the attributes that were there are remembered (usually none).
  const before = new Map<HTMLElement, string>();
  let value = "plaintext-only";
  for (const el of els) {
    const was = el.getAttribute("contenteditable");
    if (was !== null) before.set(el, was);
    try {
      el.contentEditable = value;
    } catch {
      el.contentEditable = value = "true";
    }
  }
  return () => {
    for (const el of els) {
      const was = before.get(el);
      if (was === undefined) el.removeAttribute("contenteditable");
      else el.setAttribute("contenteditable", was);
    }
  };
}

/**
 * Single-line, plain-text behaviour for every plain region, through
 * listeners on `document` (one set, however many regions). `region` maps an
 * event target to its plain region, if any; `onInput` runs after each edit,
 * never in the middle of an IME composition (see `onEdit`). Returns the
 * functions removing the listeners.
 */
export function plainEvents(
  { listen, onEdit }: Kit,
  region: (target: EventTarget | null) => HTMLElement | undefined,
  onInput: (el: HTMLElement) => void,
): (() => void)[] {
  const handlers: Record<string, (e: Event) => void> = {
    keydown(e) {
      const k = e as KeyboardEvent;
      if (k.key === "Enter" && !k.isComposing) e.preventDefault();
    },
    beforeinput(e) {
      if (/^insert(Paragraph|LineBreak)$/.test((e as InputEvent).inputType)) {
        e.preventDefault();
      }
    },
    paste(e) {
      // Inserted as plain text on one line (keeping the undo stack); where
      // the command fails, the native paste runs and the edit cleans up.
      const data = (e as ClipboardEvent).clipboardData;
      const text = oneLine(data?.getData("text/plain") ?? "");
      if (document.execCommand("insertText", false, text)) e.preventDefault();
    },
  };
  const edited = (el: HTMLElement) => {
    // Fallback engines may still sneak in markup or line breaks.
    const text = el.textContent ?? "";
    if (el.childElementCount || /[\r\n]/.test(text)) {
      el.textContent = oneLine(text);
    }
    onInput(el);
  };
  return [
    ...Object.keys(handlers).map((type) =>
      listen(document, type, (e) => {
        if (region(e.target)) handlers[type](e);
      })
    ),
    onEdit(document, (e) => {
      const el = region(e.target);
      if (el) edited(el);
    }),
  ];
}
