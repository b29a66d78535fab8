// The reference parser of seam's JavaScript checks: acorn, with
// ecmaVersion "latest", the case's sourceType and allowHashBang.  Reads
// JSON Lines {id, text, source_type} on stdin and writes {id, ok, pos,
// message} for each (pos: the UTF-16 offset acorn stopped at).
//
//   node tests/javascript/parse.mjs --acorn CACHE/node_modules/acorn/dist/acorn.mjs
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const at = process.argv.indexOf("--acorn");
if (at < 0 || !process.argv[at + 1]) {
  process.stderr.write("usage: parse.mjs --acorn PATH/acorn.mjs\n");
  process.exit(64);
}
const acorn = await import(pathToFileURL(process.argv[at + 1]).href);

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const request = JSON.parse(line);
  const answer = { id: request.id, ok: true };
  try {
    acorn.parse(request.text, {
      ecmaVersion: "latest",
      sourceType: request.source_type === "module" ? "module" : "script",
      allowHashBang: true,
    });
  } catch (error) {
    answer.ok = false;
    answer.pos = error.pos ?? null;
    answer.message = String(error.message);
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
