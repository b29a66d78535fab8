// The reference parser of seam's TypeScript checks: TypeScript's own parser
// (ts.createSourceFile; a text is valid when its parseDiagnostics are
// empty), for .ts, .tsx and .jsx texts.  Reads JSON Lines {id, text, kind}
// (kind: "ts", "tsx" or "jsx") on stdin and writes {id, ok, pos, message}
// for each (pos: the UTF-16 offset of the first diagnostic).
//
//   node tests/typescript/parse.mjs --typescript CACHE/node_modules/typescript/lib/typescript.js
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const at = process.argv.indexOf("--typescript");
if (at < 0 || !process.argv[at + 1]) {
  process.stderr.write("usage: parse.mjs --typescript PATH/typescript.js\n");
  process.exit(64);
}
const ts = createRequire(import.meta.url)(process.argv[at + 1]);
const kinds = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, jsx: ts.ScriptKind.JSX };

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of lines) {
  if (!line) continue;
  const request = JSON.parse(line);
  const kind = kinds[request.kind] === undefined ? "ts" : request.kind;
  const answer = { id: request.id, ok: true };
  for (let run = 0; run < (request.repeat || 1); run++) {
    const start = process.hrtime.bigint();
    const file = ts.createSourceFile("case." + kind, request.text, ts.ScriptTarget.Latest, false, kinds[kind]);
    const us = Number(process.hrtime.bigint() - start) / 1000;
    const first = file.parseDiagnostics[0];
    if (first) {
      answer.ok = false;
      answer.pos = first.start;
      answer.message = ts.flattenDiagnosticMessageText(first.messageText, "\n");
    }
    if (request.repeat && (answer.us === undefined || us < answer.us)) answer.us = us;
  }
  process.stdout.write(JSON.stringify(answer) + "\n");
}
