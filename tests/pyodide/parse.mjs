// CPython's own parser, in WebAssembly (pyodide), as a line-oriented
// service for seam's per-version checks:
//
//   node tests/pyodide/parse.mjs PYODIDE_DIR
//
// Writes {"version": "3.N.M"} once ready, then reads JSON Lines
// {"id", "text"} and answers each with {"id", "ok", "error"}: whether that
// CPython's ast.parse accepts the text (warnings silenced, as the 3.11
// checks do).  With {"id", "files": true}, answers {"id", "files": [[name,
// text], ...]}: the standard library's .py files (python_stdlib.zip, or,
// before 3.12, the files under /lib/python3.N).
import { createInterface } from 'node:readline';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = path.resolve(process.argv[2]);
const { loadPyodide } = await import(pathToFileURL(path.join(dir, 'pyodide.mjs')).href);
const py = await loadPyodide({ indexURL: dir + path.sep, stdout: () => {}, stderr: () => {} });
py.runPython(`
import ast, json, sys, warnings

def seam_check(text):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return json.dumps([True, ""])
        except (SyntaxError, ValueError, MemoryError, RecursionError) as e:
            return json.dumps([False, "%s: %s" % (type(e).__name__, e)])

def seam_files():
    import os, zipfile
    out = []
    for entry in sys.path:
        if entry.endswith(".zip") and os.path.isfile(entry):
            with zipfile.ZipFile(entry) as z:
                for name in sorted(z.namelist()):
                    if name.endswith(".py"):
                        try:
                            out.append([name, z.read(name).decode("utf-8")])
                        except UnicodeDecodeError:
                            pass
    # before 3.12 pyodide keeps the standard library as files
    lib = "/lib/python%d.%d" % sys.version_info[:2]
    if not out and os.path.isdir(lib):
        for top, dirs, names in os.walk(lib):
            dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "test", "tests", "__pycache__"))
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(top, name)
                    try:
                        with open(path, encoding="utf-8") as f:
                            out.append([os.path.relpath(path, lib), f.read()])
                    except (UnicodeDecodeError, OSError):
                        pass
    return json.dumps(out)

seam_version = "%d.%d.%d" % sys.version_info[:3]
`);
const check = py.globals.get('seam_check');
const files = py.globals.get('seam_files');
process.stdout.write(JSON.stringify({ version: py.globals.get('seam_version') }) + '\n');
for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) {
    continue;
  }
  const ask = JSON.parse(line);
  if (ask.files) {
    process.stdout.write(JSON.stringify({ id: ask.id, files: JSON.parse(files()) }) + '\n');
    continue;
  }
  const [ok, error] = JSON.parse(check(ask.text));
  process.stdout.write(JSON.stringify({ id: ask.id, ok, error }) + '\n');
}
