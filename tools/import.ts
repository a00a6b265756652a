/**
 * `deno task import [FILE]`: loads JSON lines written by `deno task export`
 * (from FILE, or stdin) into the demo's content store, which must be empty:
 * a store that holds any record, revision, draft or comment is refused and left as it was.
 * PostgreSQL imports in one transaction (all or nothing); a KV import stops
 * at the first bad line.
 *
 * @example
 * ```sh
 * CMS_DATABASE_URL=postgres://cms@127.0.0.1/cms deno task import backup.jsonl
 * ```
 *
 * @module
 */
import {
  checkApproval,
  checkComment,
  checkDraft,
  type StoreLine,
} from "../server/store/mod.ts";
import { openStoreFromEnv } from "./export.ts";

/**
 * Parses JSON lines into store lines; throws naming the first bad line.
 *
 * @example
 * ```ts
 * import { parseLines } from "./import.ts";
 * const text = '{"type":"record","collection":"pages","key":"home","record":{"title":"Hi"}}\n';
 * const lines = await Array.fromAsync(parseLines(ReadableStream.from([text])));
 * lines.length; // 1
 * ```
 */
export async function* parseLines(
  input: ReadableStream<string>,
): AsyncIterable<StoreLine> {
  let rest = "";
  let number = 0;
  const parse = (text: string): StoreLine | null => {
    number++;
    if (text.trim() === "") return null;
    try {
      return checkLine(JSON.parse(text));
    } catch (err) {
      throw new Error(`line ${number}: ${(err as Error).message}`);
    }
  };
  for await (const chunk of input) {
    rest += chunk;
    let nl;
    while ((nl = rest.indexOf("\n")) >= 0) {
      const line = parse(rest.slice(0, nl));
      rest = rest.slice(nl + 1);
      if (line) yield line;
    }
  }
  const last = parse(rest);
  if (last) yield last;
}

/**
 * The line's shape; revisions, drafts, comments and review verdicts are
 * checked again by the store's `load`.
 */
function checkLine(data: unknown): StoreLine {
  const line = data as StoreLine;
  if (line?.type === "revision" && typeof line.revision === "object") {
    return line;
  }
  if (line?.type === "draft") {
    return { type: "draft", draft: checkDraft(line.draft) };
  }
  if (line?.type === "comment") {
    return { type: "comment", comment: checkComment(line.comment) };
  }
  if (line?.type === "approval") {
    return { type: "approval", approval: checkApproval(line.approval) };
  }
  if (
    line?.type === "record" && typeof line.collection === "string" &&
    typeof line.key === "string" && typeof line.record === "object" &&
    line.record !== null && !Array.isArray(line.record) &&
    Object.values(line.record).every((v) =>
      typeof v === "string" ||
      (Array.isArray(v) && v.every((item) => typeof item === "string"))
    )
  ) return line;
  throw new Error("not a record, revision, draft, comment or approval line");
}

if (import.meta.main) {
  const opened = await openStoreFromEnv((name) => Deno.env.get(name));
  try {
    const file = Deno.args[0];
    const input = file ? (await Deno.open(file)).readable : Deno.stdin.readable;
    let n = 0;
    const counted = async function* () {
      for await (
        const line of parseLines(input.pipeThrough(new TextDecoderStream()))
      ) {
        n++;
        yield line;
      }
    };
    await opened.store.load(counted());
    console.error(`Imported ${n} lines into ${opened.where}.`);
  } catch (err) {
    console.error(`Import failed: ${(err as Error).message}`);
    Deno.exitCode = 1;
  } finally {
    await opened.close();
  }
}
