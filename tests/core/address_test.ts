/**
 * One table of field addresses, read by the client's marker reader (in
 * jsdom) and by the server's save endpoint (over a real Request): both must
 * give the same verdict, and the same parts when they accept.
 */
import assert from "node:assert/strict";
import { JSDOM } from "jsdom";
import { readMarker } from "../../client/markers.ts";
import fc from "fast-check";
import {
  addressReader,
  formatAddress,
  parseAddress,
} from "../../core/address.ts";
import { createSaveHandler } from "../../server/save/handler.ts";
import type { ContentRecord, ContentStore } from "../../server/store/types.ts";
import type { Allowlist } from "../../server/http/auth.ts";

/** [marker text, valid?, what the case is about]. */
const TABLE: [string, boolean, string][] = [
  // ASCII
  ["pages:home:title", true, "plain ASCII"],
  ["pages:about-us:title", true, "hyphen in key"],
  ["pages:v1.2~beta_x:title", true, "key punctuation -_.~"],
  ["_pages:home:title", true, "collection starts with _"],
  ["pa-ges:home:ti-tle", true, "hyphens in names"],
  ["Pages:home:Title", true, "upper case names"],
  ["pages:home:toString", true, "grammar admits it; the allowlist decides"],
  ["1pages:home:title", false, "collection starts with a digit"],
  ["-pages:home:title", false, "collection starts with -"],
  ["pages:home:$title", false, "$ in field"],
  ["pages:home/x:title", false, "slash in key"],
  ["pages:a%20b:title", false, "percent in key"],
  ["pages:<b>:title", false, "angle brackets in key"],
  ["pages:home:ti'tle", false, "quote in field"],
  // Unicode
  ["pages:título:body", true, "accented key (NFC)"],
  ["pages:日本語:title", true, "CJK key"],
  ["pages:مرحبا:title", true, "Arabic key"],
  ["pages:दिल्ली:title", true, "Devanagari key with combining marks"],
  ["pages:١٢٣:title", true, "Arabic-Indic digits in key"],
  ["pages:ti\u0301tulo:title", false, "key not in NFC"],
  ["pages:😀:title", false, "emoji key"],
  ["pägés:home:title", false, "non-ASCII collection"],
  ["pages:home:tïtle", false, "non-ASCII field"],
  ["pages:home\u200b:title", false, "zero-width space in key"],
  ["pages:home\u202e:title", false, "bidi override in key"],
  ["pages:\ud800:title", false, "lone surrogate in key"],
  // Spaces
  ["pages:home page:título", false, "space in key"],
  ["pages: home:title", false, "leading space in key"],
  ["pages:home:title ", false, "trailing space"],
  [" pages:home:title", false, "leading space"],
  ["pages:home\u00a0x:title", false, "no-break space in key"],
  ["pages:home\u3000:title", false, "ideographic space in key"],
  ["pages:home:ti tle", false, "space in field"],
  // Dots
  ["pages:a.b:title", true, "dot in key"],
  ["pages:...:title", true, "three dots are a key"],
  ["pages:.:title", false, "key ."],
  ["pages:..:title", false, "key .."],
  ["pages.x:home:title", false, "dot in collection"],
  ["pages:home:title.", false, "trailing dot in field"],
  ["pages:home:.title", false, "leading dot in field"],
  ["pages:home:features.1.2", false, "two indices"],
  // Colons
  ["pages:home", false, "two parts"],
  ["pages", false, "one part"],
  ["pages:a:b:title", false, "colon in key"],
  ["pages:home:title:", false, "trailing colon"],
  [":pages:home:title", false, "leading colon"],
  // List indices
  ["pages:home:features.0", true, "index 0"],
  ["pages:home:features.9", true, "index 9"],
  ["pages:home:features.10", true, "index past the list (the store decides)"],
  ["pages:home:features.999999999", true, "largest index"],
  ["pages:home:features.1000000000", false, "index 1e9"],
  ["pages:home:features.01", false, "leading zero"],
  ["pages:home:features.00", false, "double zero"],
  ["pages:home:features.-1", false, "negative"],
  ["pages:home:features.+1", false, "plus sign"],
  ["pages:home:features.1e2", false, "exponent"],
  ["pages:home:features.0x1", false, "hex"],
  ["pages:home:features.", false, "empty index"],
  ["pages:home:features.٣", false, "Arabic-Indic digit index"],
  ["pages:home:features.１", false, "full-width digit index"],
  ["pages:home:features. 1", false, "space in index"],
  // Empty parts
  ["", false, "empty"],
  ["::", false, "all parts empty"],
  [":home:title", false, "empty collection"],
  ["pages::title", false, "empty key"],
  ["pages:home:", false, "empty field"],
  // Overlong
  [`${"c".repeat(64)}:home:title`, true, "64-char collection"],
  [`${"c".repeat(65)}:home:title`, false, "65-char collection"],
  [`pages:home:${"f".repeat(64)}`, true, "64-char field"],
  [`pages:home:${"f".repeat(65)}`, false, "65-char field"],
  [`pages:${"k".repeat(128)}:title`, true, "128-char key"],
  [`pages:${"k".repeat(129)}:title`, false, "129-char key"],
  [`pages:${"é".repeat(128)}:title`, true, "128 code points, 2 bytes each"],
  [`pages:${"語".repeat(129)}:title`, false, "129 CJK code points"],
  // Control characters
  ["pages:home\u0000:title", false, "NUL in key"],
  ["pages:ho\tme:title", false, "tab in key"],
  ["pages:ho\nme:title", false, "newline in key"],
  ["pages:home:title\r", false, "carriage return"],
  ["pages:ho\u007fme:title", false, "DEL in key"],
  ["pages:ho\u0085me:title", false, "NEL in key"],
  // Reserved names
  ["__proto__:home:title", false, "__proto__ collection"],
  ["constructor:home:title", false, "constructor collection"],
  ["prototype:home:title", false, "prototype collection"],
  ["pages:__proto__:title", false, "__proto__ key"],
  ["pages:constructor:title", false, "constructor key"],
  ["pages:home:__proto__", false, "__proto__ field"],
  ["pages:home:prototype", false, "prototype field"],
  ["pages:home:constructor.0", false, "constructor list"],
];

const LIST_LENGTH = 10;

/** Splits at the first and last colon, as a save body's three parts. */
function parts(text: string): [string, string, string] {
  const i = text.indexOf(":");
  const j = text.lastIndexOf(":");
  if (i < 0) return [text, "", ""];
  if (i === j) return [text.slice(0, i), "", text.slice(i + 1)];
  return [text.slice(0, i), text.slice(i + 1, j), text.slice(j + 1)];
}

/** An allowlist that admits every name of the table: only the grammar decides. */
function allowEverything(): Allowlist {
  const fields = new Map<string, Map<string, "plain" | "list">>();
  for (const [text] of TABLE) {
    const [collection, , field] = parts(text);
    const dot = field.indexOf(".");
    const name = dot < 0 ? field : field.slice(0, dot);
    if (!fields.has(collection)) fields.set(collection, new Map());
    const map = fields.get(collection)!;
    const indexed = dot >= 0 && /^\d+$/.test(field.slice(dot + 1));
    if (map.get(name) !== "list") map.set(name, indexed ? "list" : "plain");
  }
  return Object.fromEntries(
    [...fields].map(([c, m]) => [c, Object.fromEntries(m)]),
  );
}

/** The client's verdicts: marker text → parsed parts, or null. */
function clientVerdicts(): (string[] | null)[] {
  const { window } = new JSDOM("<!DOCTYPE html><body></body>");
  try {
    return TABLE.map(([text]) => {
      const el = window.document.createElement("span");
      el.setAttribute("data-cms-field", text);
      const m = readMarker(el as unknown as HTMLElement);
      return typeof m === "string" ? null : [m.collection, m.key, m.field];
    });
  } finally {
    window.close();
  }
}

/** The server's verdicts: what reached the store, or null. */
async function serverVerdicts(): Promise<(string[] | null)[]> {
  let reached: string[] | null = null;
  const store: ContentStore = {
    get: () => Promise.resolve(null),
    update(collection, key, mutate) {
      const seeded: ContentRecord = {
        features: Array.from({ length: LIST_LENGTH }, (_, i) => `f${i}`),
      };
      const written = mutate(seeded);
      const changed = written &&
        Object.keys(written).find((f) =>
          JSON.stringify(written[f]) !== JSON.stringify(seeded[f])
        );
      const index = changed === "features"
        ? (written!.features as string[]).indexOf("new")
        : -1;
      reached = [
        collection,
        key,
        changed === undefined || changed === null
          ? "(none)"
          : index < 0
          ? changed
          : `${changed}.${index}`,
      ];
      return Promise.resolve(written);
    },
  };
  const save = createSaveHandler({
    authorize: () => ({ name: "Ada" }),
    allowlist: allowEverything(),
    store,
  });
  const out: (string[] | null)[] = [];
  for (const [text] of TABLE) {
    const [collection, key, field] = parts(text);
    reached = null;
    const res = await save(
      new Request("https://site.example/api/cms/save", {
        method: "PATCH",
        body: JSON.stringify({ collection, key, field, value: "new" }),
      }),
    );
    const reason = await res.text();
    if (reached === null) {
      assert.equal(res.status, 400, `${text}: ${reason}`);
    } else if (res.status === 400) {
      // An index past the seeded list: valid address, missing item.
      assert.equal(reason, "List item does not exist", text);
      assert.ok(Number(field.split(".")[1]) >= LIST_LENGTH, text);
      reached = [collection, key, field];
    } else {
      assert.equal(res.status, 204, `${text}: ${reason}`);
    }
    out.push(reached);
  }
  return out;
}

Deno.test("addresses: client marker reader and server save endpoint agree on every case", async () => {
  const client = clientVerdicts();
  const server = await serverVerdicts();
  for (const [i, [text, valid, about]] of TABLE.entries()) {
    const label = `${JSON.stringify(text)} (${about})`;
    assert.equal(client[i] !== null, valid, `client: ${label}`);
    assert.equal(server[i] !== null, valid, `server: ${label}`);
    assert.deepEqual(client[i], server[i], `parts: ${label}`);
    if (valid) assert.deepEqual(client[i], parts(text), label);
  }
});

Deno.test("addresses: formatAddress inverts parseAddress on every valid case", () => {
  for (const [text, valid] of TABLE) {
    const address = parseAddress(text);
    assert.equal(typeof address !== "string", valid, text);
    if (typeof address === "string") {
      assert.ok(address.length > 0 && address.length < 60, address);
    } else {
      assert.equal(formatAddress(address), text);
      assert.deepEqual(parseAddress(formatAddress(address)), address);
    }
  }
});

Deno.test("addresses: the client's caching reader gives parseAddress's verdict on random strings", () => {
  // Strings built from the grammar's interesting pieces, so that valid,
  // nearly valid and repeated collection:key heads all come up.
  const piece = fc.constantFrom(
    ":",
    ".",
    "pages",
    "home",
    "título",
    "e\u0301",
    "_a",
    "-",
    "0",
    "01",
    "1",
    "99",
    " ",
    "__proto__",
    "..",
    "~",
    "A",
    "ß",
    "\u0000",
    "x".repeat(64),
  );
  const text = fc.oneof(
    fc.array(piece, { maxLength: 8 }).map((p) => p.join("")),
    fc.string({ maxLength: 20 }),
  );
  fc.assert(
    fc.property(fc.array(text, { minLength: 1, maxLength: 20 }), (texts) => {
      const read = addressReader(); // one cache over the whole list
      for (const t of texts) assert.deepEqual(read(t), parseAddress(t), t);
    }),
    { numRuns: 2000 },
  );
});
