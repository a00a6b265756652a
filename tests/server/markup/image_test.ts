/**
 * `responsiveImage` against real uploads: the media endpoint stores sharp's
 * variants and records the image, and the helper turns the stored URL
 * into `src`, `width`, `height`, `srcset` and `sizes`.
 */
import assert from "node:assert/strict";
import {
  cmsField,
  cmsImage,
  createMediaHandler,
  defineContent,
  LocalMediaStorage,
  MemoryContentStore,
  MemoryMediaStorage,
  responsiveImage,
} from "../../../mod.ts";
import { solid } from "../../fixtures/images.ts";
import { imageAttributes } from "../../../server/markup/mod.ts";

const ada = { name: "Ada" };

async function upload(
  options: Parameters<typeof createMediaHandler>[0],
  body: Uint8Array<ArrayBuffer>,
) {
  const media = createMediaHandler(options);
  const res = await media(
    new Request("https://site.example/api/cms/media", {
      method: "POST",
      body,
      headers: { "X-File-Name": "hero.jpg" },
    }),
  );
  assert.equal(res.status, 200, await res.clone().text());
  return await res.json() as { url: string; key: string };
}

Deno.test("responsiveImage: a real upload gives its size, variants and sizes", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage({ publicUrl: "/media" });
  const cms = { authorize: () => ada, store, storage, uploads: store };
  const { url, key } = await upload(cms, await solid(1200, 800, "jpeg"));
  const image = await responsiveImage(url, cms);
  const stem = key.replace(/\.jpg$/, "");
  assert.deepEqual(image, {
    src: url,
    width: 1200,
    height: 800,
    srcset: `/media/${stem}-480w.webp 480w, /media/${stem}-960w.webp 960w, ` +
      `${url} 1200w`,
    sizes: "(max-width: 1200px) 100vw, 1200px",
  });
  // Every URL in srcset is a stored object.
  for (const part of image!.srcset!.split(", ")) {
    const objectKey = part.split(" ")[0].slice("/media/".length);
    assert.ok(storage.get(objectKey), objectKey);
  }
  // The host's own sizes win.
  const narrow = await responsiveImage(url, { ...cms, sizes: "50vw" });
  assert.equal(narrow?.sizes, "50vw");
  // The markup a template host writes.
  assert.equal(
    cmsImage({ field: "pages:home:hero", image, attrs: { alt: "" } }),
    `<img alt src="${url}" width="1200" height="800" srcset="${
      image!.srcset
    }" sizes="${image!.sizes}"/>`,
  );
});

Deno.test("responsiveImage: local files, a key with a folder and escapes", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new MemoryContentStore();
    const storage = new LocalMediaStorage({ dir, publicUrl: "/files" });
    const cms = {
      authorize: () => ada,
      store,
      storage,
      uploads: store,
      key: () => "up loads/ä b.png",
      images: { widths: [300, 640] },
    };
    const { url } = await upload(cms, await solid(640, 320, "png"));
    assert.equal(url, "/files/up%20loads/%C3%A4%20b.png");
    const image = await responsiveImage(url, cms);
    assert.equal(image?.width, 640);
    assert.equal(image?.height, 320);
    // No variant at or above the original's width: the original is the 640w.
    assert.equal(
      image!.srcset,
      "/files/up%20loads/%C3%A4%20b-300w.webp 300w, " +
        "/files/up%20loads/%C3%A4%20b.png 640w",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("responsiveImage: what is not a recorded upload is just { src }", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage({ publicUrl: "/media" });
  const options = { store, storage };
  // Not under the storage's public URL.
  assert.deepEqual(await responsiveImage("https://x/a.png", options), {
    src: "https://x/a.png",
  });
  // Under it, but nothing recorded (uploaded without `uploads`).
  const bare = await upload(
    { authorize: () => ada, storage },
    await solid(1000, 500, "jpeg"),
  );
  assert.deepEqual(await responsiveImage(bare.url, options), { src: bare.url });
  // A damaged record, a bad escape, the bare base, no value.
  await store.update("_cms_uploads", "x.png", () => ({ image: "{oops" }));
  assert.deepEqual(await responsiveImage("/media/x.png", options), {
    src: "/media/x.png",
  });
  assert.deepEqual(await responsiveImage("/media/%E0%A4%A", options), {
    src: "/media/%E0%A4%A",
  });
  assert.deepEqual(await responsiveImage("/media/", options), {
    src: "/media/",
  });
  assert.equal(await responsiveImage("", options), null);
  assert.equal(await responsiveImage(null, options), null);
});

Deno.test("responsiveImage: an image too small for variants has its size, no srcset", async () => {
  const store = new MemoryContentStore();
  const storage = new MemoryMediaStorage({ publicUrl: "/media" });
  const cms = { authorize: () => ada, store, storage, uploads: store };
  const { url } = await upload(cms, await solid(200, 100, "png"));
  assert.deepEqual(await responsiveImage(url, cms), {
    src: url,
    width: 200,
    height: 100,
  });
});

Deno.test("imageAttributes: a variant as wide as the original stands for it; unusable variants are left out", () => {
  const v = (url: string, width: number) => ({
    url,
    width,
    height: width / 2,
    type: "image/webp",
  });
  const image = {
    url: "/m/a.png",
    width: 800,
    height: 400,
    type: "image/png",
    variants: [
      v("/m/a-400w.webp", 400),
      v("/m/a b.webp", 600),
      v("/m/a,c.webp", 700),
      v("/m/big.webp", 1600),
      v("/m/a-800w.webp", 800),
    ],
  };
  assert.deepEqual(imageAttributes(image), {
    src: "/m/a.png",
    width: 800,
    height: 400,
    srcset: "/m/a-400w.webp 400w, /m/a-800w.webp 800w",
    sizes: "(max-width: 800px) 100vw, 800px",
  });
});

Deno.test("cmsImage and cmsField: no image is nothing for visitors, an empty <img> for editors", () => {
  const content = defineContent({ pages: { hero: "image" } });
  const field = "pages:home:hero";
  // A visitor would see the alt text of an <img> without src in its place.
  assert.equal(
    cmsImage({ content, field, image: null, attrs: { alt: "Cover" } }),
    "",
  );
  assert.equal(
    cmsField({ content, field, value: "", attrs: { alt: "Cover" } }),
    "",
  );
  assert.equal(cmsField({ content, field, value: null }), "");
  // The editor gets an <img> without src to click or drop an image onto.
  const editing = cmsImage({ content, field, image: null, editing: true });
  assert.match(
    editing,
    /^<img data-cms-field="pages:home:hero" data-cms-type="image"/,
  );
  assert.doesNotMatch(editing, /src=/);
  assert.match(
    cmsField({ content, field, value: null, editing: true }),
    /^<img data-cms-field="pages:home:hero"/,
  );
  // A misnamed field still throws for visitors.
  assert.throws(
    () =>
      cmsImage({
        content,
        field: "pages:home:nope" as "pages:home:hero",
        image: null,
      }),
    TypeError,
  );
  // With an image, visitors get it without markers.
  assert.equal(
    cmsImage({
      content,
      field,
      image: { src: "/media/a.png" },
      attrs: { alt: "" },
    }),
    `<img alt src="/media/a.png"/>`,
  );
});
