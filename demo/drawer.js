// The demo's "Page settings" drawer (host code, not part of the client).
// The edit bar's Settings action dispatches `cms:open-drawer`; this opens a
// drawer that edits the rich field `pages:home:summary` with the client's
// own `RichText` editor and `Icon` set, and saves it to the save endpoint.

// Logging out clears this browser's local drafts, so unsaved text does not
// come back at the next sign-in. A submit listener, not an inline handler:
// the demo's CSP allows no inline script. Loaded on every editor's page;
// the client's entry (served at /cms/) loads only at logout.
const logout = document.querySelector("form[data-clear-drafts]");
logout?.addEventListener("submit", async (e) => {
  if (logout.dataset.cleared) return;
  e.preventDefault();
  try {
    (await import(new URL("../cms/mod.js", import.meta.url).href))
      .clearDrafts();
  } finally {
    logout.dataset.cleared = "1";
    logout.requestSubmit();
  }
});

const settings = JSON.parse(
  document.getElementById("demo-settings")?.textContent ?? "null",
);
let current = null;
if (settings) {
  const { RichText, Icon } = await import(settings.client);
  document.addEventListener("cms:open-drawer", () => {
    if (!current) current = openDrawer(RichText, Icon);
  });
}

function openDrawer(RichText, Icon) {
  const opener = document.activeElement;
  const backdrop = el("div", { class: "drawer-backdrop" });
  const status = el("span", { class: "status", "aria-live": "polite" });
  const editor = RichText({
    value: settings.value,
    media: settings.media,
    label: "Summary",
  });
  editor.classList.add("drawer-editor");
  let controller = null;
  let dirty = false;
  editor.ready.then((c) => {
    controller = c;
    c.onChange(() => {
      dirty = true;
      status.textContent = "Unsaved changes";
    });
    c.element.focus();
  }, (err) => {
    status.textContent = "The editor failed to load";
    console.error(err);
  });

  const close = () => {
    if (dirty && !confirm("Discard the unsaved summary?")) return;
    controller?.destroy();
    backdrop.remove();
    panel.remove();
    document.removeEventListener("keydown", onKey, true);
    current = null;
    if (opener instanceof HTMLElement) opener.focus();
  };
  const save = async () => {
    if (!controller) return;
    const value = controller.value;
    status.textContent = "Saving…";
    try {
      const [collection, key, field] = settings.field.split(":");
      const res = await fetch(settings.save, {
        method: "PATCH",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          collection,
          key,
          field,
          value,
          version: settings.version,
        }),
      });
      if (res.status === 204) {
        settings.value = value;
        settings.version = res.headers.get("CMS-Version") ?? settings.version;
        dirty = false;
        status.textContent = "Saved";
        const summary = document.getElementById("page-summary");
        if (summary) summary.innerHTML = controller.value;
      } else if (res.status === 409) {
        status.textContent = "Changed by someone else: reload to see it";
      } else {
        status.textContent = `Not saved (${res.status}): ${await res.text()}`;
      }
    } catch {
      status.textContent = "Not saved: the network failed";
    }
  };
  const onKey = (event) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
  };

  const closeButton = el("button", {
    type: "button",
    class: "icon-btn",
    "aria-label": "Close settings",
  }, Icon("close"));
  closeButton.addEventListener("click", close);
  backdrop.addEventListener("click", close);
  const saveButton = el("button", {
    type: "button",
    class: "btn btn-primary",
  }, "Save");
  saveButton.addEventListener("click", save);
  const doneButton = el("button", { type: "button", class: "btn" }, "Close");
  doneButton.addEventListener("click", close);

  const panel = el(
    "aside",
    {
      class: "drawer",
      role: "dialog",
      "aria-modal": "true",
      "aria-labelledby": "drawer-title",
    },
    el(
      "header",
      {},
      Icon("settings"),
      el("h2", { id: "drawer-title" }, "Page settings"),
      closeButton,
    ),
    el(
      "div",
      { class: "drawer-body" },
      el("label", {}, "Summary"),
      editor,
      el(
        "p",
        { class: "muted" },
        "Shown under the title. Saved on its own with the Save button below.",
      ),
    ),
    el("footer", {}, status, doneButton, saveButton),
  );
  document.addEventListener("keydown", onKey, true);
  document.body.append(backdrop, panel);
  return panel;
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    node.setAttribute(name, value);
  }
  node.append(...children);
  return node;
}
