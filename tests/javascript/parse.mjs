// The reference parser of seam's JavaScript checks: acorn, with
// ecmaVersion "latest", the case's sourceType and allowHashBang, and with
// --acorn-jsx acorn-jsx's reading of JSX (React's extension).  Reads JSON
// Lines {id, text, source_type} on stdin and writes {id, ok, pos, message}
// for each (pos: the UTF-16 offset acorn stopped at).
//
//   node tests/javascript/parse.mjs --acorn CACHE/node_modules/acorn/dist/acorn.mjs
//        [--acorn-jsx CACHE/node_modules/acorn-jsx/index.js]
import { createRequire } from "node:module";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const at = process.argv.indexOf("--acorn");
if (at < 0 || !process.argv[at + 1]) {
  process.stderr.write("usage: parse.mjs --acorn PATH/acorn.mjs\n");
  process.exit(64);
}
const acorn = await import(pathToFileURL(process.argv[at + 1]).href);
const jsxAt = process.argv.indexOf("--acorn-jsx");
const parser = jsxAt < 0 ? acorn.Parser
  : acorn.Parser.extend(createRequire(import.meta.url)(process.argv[jsxAt + 1])());

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const request = JSON.parse(line);
  const answer = { id: request.id, ok: true };
  const options = {
    ecmaVersion: "latest",
    sourceType: request.source_type === "module" ? "module" : "script",
    allowHashBang: true,
  };
  for (let run = 0; run < (request.repeat || 1); run++) {
    const start = process.hrtime.bigint();
    try {
      parser.parse(request.text, options);
    } catch (error) {
      answer.ok = false;
      answer.pos = error.pos ?? null;
      answer.message = String(error.message);
    }
    const us = Number(process.hrtime.bigint() - start) / 1000;
    if (request.repeat && (answer.us === undefined || us < answer.us)) answer.us = us;
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
