import { useEffect } from "preact/hooks";

// Rendered only in edit mode: loads the client lazily and mounts it. The
// client reads #cms-config and the markers from the page.
export default function CmsLoader() {
  useEffect(() => {
    let unmount: (() => void) | undefined;
    let gone = false;
    import("@inplace/cms/client").then(({ mountCms }) => {
      if (gone) return;
      const cms = mountCms();
      unmount = () => cms.unmount();
    });
    return () => {
      gone = true;
      unmount?.();
    };
  }, []);
  return null;
}
