/**
 * Runs the magazine of `real_site_app.ts` as a team would: a new folder
 * outside the repository whose `deno.json` links this checkout, `deno run`
 * on its `main.ts`, a Deno KV file and a media folder that outlive a
 * restart. Also the deterministic long article the scenario stores.
 *
 * @module
 */
import { appSource, type LogLine } from "./real_site_app.ts";
import { freePort } from "./serve.ts";

const ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The editor's password of the magazine. */
export const PASSWORD = "spring-issue-2026";

/** A running magazine process. */
export interface RealSite {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  url: string;
  /** Every request line logged so far. */
  log(): Promise<LogLine[]>;
  /** Stops the process. */
  stop(): Promise<void>;
}

/** The app folder: `deno.json` with `"links"`, `main.ts`, data paths. */
export interface RealSiteApp {
  /** The folder (outside the repository). */
  dir: string;
  /** Starts (or restarts) the app on the same KV file and media folder. */
  start(): Promise<RealSite>;
  /** Removes the folder. */
  remove(): Promise<void>;
}

/** Writes the app into a new temp folder linking this checkout. */
export async function createRealSiteApp(): Promise<RealSiteApp> {
  const dir = await Deno.makeTempDir({ prefix: "cms-magazine-" });
  if (dir.startsWith(ROOT)) throw new Error("app folder inside the repo");
  // Exactly what README's Install section says to put in deno.json.
  await Deno.writeTextFile(
    `${dir}/deno.json`,
    JSON.stringify({
      imports: { "@inplace/cms": "jsr:@inplace/cms@^0.1.0" },
      links: [ROOT],
      unstable: ["kv", "no-legacy-abort"],
    }),
  );
  await Deno.writeTextFile(`${dir}/main.ts`, appSource);
  const logPath = `${dir}/requests.log`;
  return {
    dir,
    async start() {
      const port = freePort();
      const child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", "main.ts"],
        cwd: dir,
        env: {
          PORT: String(port),
          EDITOR_PASSWORD: PASSWORD,
          KV_PATH: `${dir}/content.kv`,
          MEDIA_DIR: `${dir}/media`,
          CMS_LOG: logPath,
          NO_COLOR: "1",
        },
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn();
      const url = `http://127.0.0.1:${port}`;
      let up = false;
      for (let i = 0; i < 600 && !up; i++) {
        up = await fetch(`${url}/issues/1`).then(async (r) => {
          await r.body?.cancel();
          return r.status === 200;
        }, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      const stop = async () => {
        try {
          child.kill("SIGTERM");
        } catch { /* gone */ }
        await child.status;
      };
      if (!up) {
        await stop();
        throw new Error("the magazine did not start within 60 s");
      }
      return {
        url,
        async log() {
          const text = await Deno.readTextFile(logPath).catch(() => "");
          return text.split("\n").filter(Boolean).map((l) => JSON.parse(l));
        },
        stop,
      };
    },
    remove: () => Deno.remove(dir, { recursive: true }),
  };
}

/** Signs in with the password form; the session cookie (`sid=…`). */
export async function signIn(base: string): Promise<string> {
  const res = await fetch(`${base}/login`, {
    method: "POST",
    body: new URLSearchParams({ password: PASSWORD, next: "/issues/1" }),
    redirect: "manual",
  });
  await res.body?.cancel();
  if (res.status !== 303) throw new Error(`login answered ${res.status}`);
  return res.headers.get("Set-Cookie")!.split(";")[0];
}

const WORDS: Record<string, string[]> = {
  en:
    "the a of in on by to at and river city market morning train bridge harbour coffee street window garden island evening lantern"
      .split(" "),
  de:
    "Fluss Stadt Markt Morgen Zug Brücke Hafen Kaffee Straße Fenster Garten Insel Abend Laterne"
      .split(" "),
  fr:
    "fleuve ville marché matin train pont port café rue fenêtre jardin île soir lanterne"
      .split(" "),
};
const END: Record<string, string> = {
  en: "End of the English article.",
  de: "Ende des deutschen Artikels.",
  fr: "Fin de l’article français.",
};

/** The sentence that closes the long article of `locale`. */
export const articleEnd = (locale: string): string => END[locale];

/**
 * A deterministic article of about 7,000 words (≈ 43,000 characters) in
 * paragraphs, with typographic punctuation outside Latin-1 (’ “ ” — € …).
 */
export function longArticle(locale: string): string {
  const words = WORDS[locale];
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
  const paragraphs: string[] = [];
  let count = 0;
  while (count < 6_950) {
    const sentences: string[] = [];
    for (let s = 0; s < 6; s++) {
      const n = 8 + (next() % 8);
      const ws = Array.from({ length: n }, () => words[next() % words.length]);
      count += n;
      ws[0] = ws[0][0].toUpperCase() + ws[0].slice(1);
      const mark = next() % 5;
      if (mark === 0) ws[2] = `“${ws[2]}”`;
      if (mark === 1) ws[3] = `${ws[3]}’s`;
      if (mark === 2) ws[1] = `${ws[1]} — ${next() % 90 + 10} €`;
      sentences.push(ws.join(" ") + (mark === 3 ? " …" : "."));
    }
    paragraphs.push(`<p>${sentences.join(" ")}</p>`);
  }
  paragraphs.push(`<p>${END[locale]}</p>`);
  return paragraphs.join("");
}

/**
 * What Word puts on the clipboard for a bullet list with a nested level
 * and a table whose first row is its header.
 */
export const WORD_HTML =
  `<html xmlns:o="urn:schemas-microsoft-com:office:office" xmlns:w="urn:schemas-microsoft-com:office:word">
<head><meta name=Generator content="Microsoft Word 15"><style><!-- p.MsoListParagraph {margin-left:36.0pt} --></style></head>
<body lang=EN-GB><!--StartFragment-->
<p class=MsoListParagraphCxSpFirst style='text-indent:-18.0pt;mso-list:l0 level1 lfo1'><![if !supportLists]><span style='font-family:Symbol'><span style='mso-list:Ignore'>·<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp; </span></span></span><![endif]>Opening hours</p>
<p class=MsoListParagraphCxSpMiddle style='margin-left:72.0pt;text-indent:-18.0pt;mso-list:l0 level2 lfo1'><![if !supportLists]><span style='font-family:"Courier New"'><span style='mso-list:Ignore'>o<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp; </span></span></span><![endif]>Weekdays 8–18</p>
<p class=MsoListParagraphCxSpLast style='text-indent:-18.0pt;mso-list:l0 level1 lfo1'><![if !supportLists]><span style='font-family:Symbol'><span style='mso-list:Ignore'>·<span style='font:7.0pt "Times New Roman"'>&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;&nbsp; </span></span></span><![endif]>Tickets from 12 €</p>
<table class=MsoTableGrid border=1 cellspacing=0 cellpadding=0 style='border-collapse:collapse;mso-yfti-tbllook:1184'>
<tr style='mso-yfti-irow:0;mso-yfti-firstrow:yes'><td width=301 valign=top style='width:225.4pt'><p class=MsoNormal><b>Station</b></p></td><td width=301 valign=top><p class=MsoNormal><b>Price</b></p></td></tr>
<tr style='mso-yfti-irow:1;mso-yfti-lastrow:yes'><td width=301 valign=top><p class=MsoNormal>Harbour</p></td><td width=301 valign=top><p class=MsoNormal>12 €</p></td></tr>
</table>
<!--EndFragment--></body></html>`;
