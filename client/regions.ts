/**
 * Plain text regions: single-line, plain-text editing of marker elements.
 *
 * @module
 */

let plaintextOnly: boolean | undefined;

/** Whether this engine supports `contenteditable="plaintext-only"`. */
export function supportsPlaintextOnly(): boolean {
  if (plaintextOnly === undefined) {
    const probe = document.createElement("div");
    try {
      probe.contentEditable = "plaintext-only";
      plaintextOnly = probe.contentEditable === "plaintext-only";
    } catch {
      plaintextOnly = false;
    }
  }
  return plaintextOnly;
}

/** Collapses line breaks (and the spaces around them) into one space. */
export function oneLine(text: string): string {
  return text.replace(/[^\S\r\n]*[\r\n]+[^\S\r\n]*/g, " ");
}

/** Inserts text at the caret, keeping the browser's undo stack. */
export function insertText(text: string): void {
  if (!document.execCommand("insertText", false, text)) {
    const sel = getSelection();
    if (!sel?.rangeCount) return;
    const range = sel.getRangeAt(0);
    range.deleteContents();
    range.insertNode(document.createTextNode(text));
    range.collapse(false);
  }
}

/**
 * Makes `el` editable as plain text. Returns its previous `contenteditable`
 * attribute, for restoring.
 */
export function makePlain(el: HTMLElement): string | null {
  const before = el.getAttribute("contenteditable");
  el.contentEditable = supportsPlaintextOnly() ? "plaintext-only" : "true";
  return before;
}

/**
 * Single-line, plain-text behaviour for every plain region, through four
 * listeners on `document` (one set, however many regions). `region` maps an
 * event target to its plain region, if any; `onInput` runs after each edit.
 * Returns a function removing the listeners.
 */
export function plainEvents(
  region: (target: EventTarget | null) => HTMLElement | undefined,
  onInput: (el: HTMLElement) => void,
): () => void {
  const handlers: Record<string, (e: Event) => void> = {
    keydown(e) {
      const k = e as KeyboardEvent;
      if (k.key === "Enter" && !k.isComposing) e.preventDefault();
    },
    beforeinput(e) {
      const type = (e as InputEvent).inputType;
      if (type === "insertParagraph" || type === "insertLineBreak") {
        e.preventDefault();
      }
    },
    paste(e) {
      e.preventDefault();
      const data = (e as ClipboardEvent).clipboardData;
      insertText(oneLine(data?.getData("text/plain") ?? ""));
    },
    input(e) {
      const el = region(e.target)!;
      // Fallback engines may still sneak in markup or line breaks.
      const text = el.textContent ?? "";
      if (el.childElementCount || /[\r\n]/.test(text)) {
        el.textContent = oneLine(text);
      }
      onInput(el);
    },
  };
  const entries = Object.entries(handlers).map(([type, fn]) =>
    [type, (e: Event) => region(e.target) && fn(e)] as const
  );
  for (const [type, fn] of entries) document.addEventListener(type, fn);
  return () => {
    for (const [type, fn] of entries) document.removeEventListener(type, fn);
  };
}
