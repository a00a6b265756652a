/**
 * The link panel of the rich text editor (a lazy chunk): address, text,
 * "open in a new tab", Apply, Remove and Cancel, under the toolbar. It edits
 * the link around the selection, or makes one from the selection or at the
 * caret. Addresses follow the sanitizer's link rule (http, https, mailto,
 * tel, relative); anything else is refused with a message.
 *
 * @module
 */

import type { RichEditor } from "./rich_types.ts";
import { t } from "./labels.ts";
import { isAllowedUrl, LINK_SCHEMES } from "../core/url.ts";

/** A bare host like "example.com/a": the editor meant https. */
const BARE_HOST = /^[a-z\d-]+(\.[a-z\d-]+)+(?::\d+)?(?:[/?#]|$)/i;

/**
 * Sets `link`'s address, target and text; a new link (`range` given)
 * replaces the selection, or goes at the region's end.
 */
function writeLink(
  { el }: RichEditor,
  link: HTMLAnchorElement,
  range: Range | false | undefined,
  url: string,
  label: string,
  newTab: boolean,
): void {
  link.setAttribute("href", url);
  if (newTab) link.setAttribute("target", "_blank");
  else link.removeAttribute("target");
  if (link.textContent !== label) link.textContent = label;
  if (range === false) return;
  if (range && el.contains(range.startContainer)) {
    range.deleteContents();
    range.insertNode(link);
    range.setStartAfter(link);
    range.collapse(true);
    getSelection()?.removeAllRanges();
    getSelection()?.addRange(range);
  } else el.append(link);
}

/**
 * Opens the link panel for the editor's current selection: Ctrl/Cmd+K, the
 * toolbar's Link button, or a click on a link.
 *
 * @example
 * ```ts ignore
 * const { openLink } = await import("./link.ts");
 * openLink(editor);
 * ```
 */
export function openLink(editor: RichEditor): void {
  const { kit: { h }, el } = editor;
  const range = editor.range();
  const start = range?.startContainer;
  const found = start &&
    (start.nodeType === 1 ? start as Element : start.parentElement)
      ?.closest("a");
  const a = found && el.contains(found) ? found : undefined;
  const selected = a ? a.textContent ?? "" : range?.toString() ?? "";

  // The toolbar's shadow root shows one panel at a time: a fixed id is
  // unique there.
  const id = "cms-link-e";
  const href = h("input", {
    type: "text",
    name: "linkUrl",
    value: a?.getAttribute("href") ?? "",
    inputmode: "url",
    "aria-describedby": id,
  });
  const text = h("input", { type: "text", name: "linkText", value: selected });
  const tab = h("input", { type: "checkbox", name: "tab" });
  tab.checked = a?.target === "_blank";
  const error = h("span", { class: "e", id, role: "alert" });
  const apply = h("button", { type: "submit", class: "p" }, t("apply"));
  const remove = h("button", { type: "button" }, t("remove"));
  const cancel = h("button", { type: "button" }, t("cancel"));
  remove.hidden = !a;
  const form = h(
    "form",
    { class: "k", role: "group", "aria-label": t("link") },
    h("label", {}, t("linkUrl"), href),
    h("label", {}, t("linkText"), text),
    h("label", { class: "c" }, tab, t("newTab")),
    error,
    h("div", { class: "a" }, apply, remove, cancel),
  );
  const close = () => editor.close();

  form.onsubmit = (e) => {
    e.preventDefault();
    let url = href.value.trim();
    if (BARE_HOST.test(url)) url = `https://${url}`;
    const problem = !url || url === "https://"
      ? t("linkEmpty")
      : !isAllowedUrl(url, LINK_SCHEMES)
      ? t("linkBad")
      : "";
    error.textContent = problem;
    href.setAttribute("aria-invalid", String(!!problem));
    if (problem) return href.focus();
    const label = text.value || url;
    close();
    editor.change(() =>
      writeLink(editor, a ?? h("a", {}), !a && range, url, label, tab.checked)
    );
  };
  remove.onclick = () => {
    close();
    editor.change(() => a?.replaceWith(...a.childNodes));
  };
  cancel.onclick = close;
  editor.show(form);
  href.focus();
}
