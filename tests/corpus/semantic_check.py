#!/usr/bin/env python3
"""seam's semantic pruners against CPython's symtable on the standard library.

Cuts of standard-library files (boundary and random-span, as in
stdlib_check.py) give true middles; the oracle decides, on the whole
program left + middle + right, whether every name the middle reads
resolves (symtable's scopes; a binding outside the middle or before the
read inside it, or a builtin), whether each attribute it takes of an
imported module exists, and whether each keyword it passes to a function
of the document (or a module's) is a parameter.  Mutants replace one name
the middle reads (a misspelling, a name of another module), one attribute
or one keyword with one that breaks the property.

Asserted: every true middle with the property is accepted by `seam check`
with "semantic": true, and at least --min-refused of the mutants are
refused at the end (the target is all; the ones let through are listed).
Reported: how many mutants are refused before their end (target 80 %),
and true middles that break the property.
"""
import argparse
import ast
import builtins
import importlib
import importlib.util
import inspect
import json
import random
import subprocess
import sys
import symtable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from stdlib_check import boundary_cuts, pick_files, randspan_cuts, stdlib_files  # noqa: E402

SKIP_IMPORT = {"antigravity", "this", "idlelib", "turtledemo", "tkinter", "turtle", "__main__"}
MODULE_NAMES = {"__name__", "__file__", "__doc__", "__builtins__", "__spec__", "__loader__", "__package__",
                "__cached__", "__annotations__", "__path__", "__class__", "__qualname__", "__module__", "__dict__"}
SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp,
          ast.DictComp, ast.GeneratorExp)


PACKAGES = set()    # top-level installed packages the oracle may import (--packages)


def site_folders():
    """The site-packages folders of this interpreter, the user's first, as
    seam reads those of the python3 on PATH."""
    import site
    folders = [site.getusersitepackages()] + list(site.getsitepackages())
    return [Path(f) for f in folders if Path(f).is_dir()]


def package_files(count, seed, max_bytes):
    """Files of the installed packages (not their tests), as stdlib_files
    picks the standard library's."""
    return pick_files([p for f in site_folders() for p in f.rglob("*.py")
                       if not {"tests", "test", "testing", "_vendor"} & set(p.parts)], count, seed, max_bytes)


def load_module(name):
    top = name.split(".")[0]
    if top in SKIP_IMPORT or (top not in sys.stdlib_module_names and top not in PACKAGES):
        return None
    try:
        return importlib.import_module(name)
    except BaseException:
        return None


def submodule(module, name):
    if not hasattr(module, "__path__"):
        return False
    try:
        return importlib.util.find_spec(f"{module.__name__}.{name}") is not None
    except (ImportError, ValueError):
        return False


class Oracle:
    """The property on one program: its violations inside [start, end)."""

    def __init__(self, text, start, end):
        self.text, self.start, self.end = text, start, end
        self.lines = [0]
        for line in text.splitlines(keepends=True):
            self.lines.append(self.lines[-1] + len(line))
        self.tree = ast.parse(text)
        self.table = symtable.symtable(text, "<cut>", "exec")
        self.open = any(isinstance(n, ast.Name) and n.id in ("exec", "globals") for n in ast.walk(self.tree))
        self.binds = {}        # scope node -> name -> [offsets]
        self.kinds = {}        # scope node -> name -> set of binding kinds
        self.parent = {}
        self.tables = {}
        self.reads, self.attrs, self.keywords = [], [], []
        self._map_tables(self.table)
        self._walk(self.tree, self.tree)

    def off(self, node, end=False):
        line, col = (node.end_lineno, node.end_col_offset) if end else (node.lineno, node.col_offset)
        start = self.lines[line - 1]
        raw = self.text[start:self.lines[line] if line < len(self.lines) else len(self.text)]
        return start + len(raw.encode()[:col].decode(errors="ignore"))

    def _map_tables(self, table):
        self.tables.setdefault((table.get_name(), table.get_lineno()), []).append(table)
        for child in table.get_children():
            self._map_tables(child)

    def table_of(self, scope):
        if scope is self.tree:
            return self.table
        name = {ast.Lambda: "lambda", ast.ListComp: "listcomp", ast.SetComp: "setcomp", ast.DictComp: "dictcomp",
                ast.GeneratorExp: "genexpr"}.get(type(scope), getattr(scope, "name", None))
        tables = self.tables.get((name, scope.lineno), [])
        return tables[0] if len(tables) == 1 else None

    def bind(self, scope, name, at, kind="other"):
        self.binds.setdefault(scope, {}).setdefault(name, []).append(at)
        self.kinds.setdefault(scope, {}).setdefault(name, set()).add(kind)

    def function_scope(self, scope):
        while isinstance(scope, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            scope = self.parent[scope]
        return scope

    def _walk(self, node, scope):
        for child, inner in self._children(node, scope):
            if isinstance(child, SCOPES) and inner is not scope:
                self.parent[child] = scope
            self._visit(child, inner)
            self._walk(child, inner)

    def _children(self, node, scope):
        """Each child with the scope it is evaluated in."""
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            outer = [*getattr(node, "decorator_list", []), *node.args.defaults,
                     *[d for d in node.args.kw_defaults if d], getattr(node, "returns", None)]
            outer += [a.annotation for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs if a.annotation]
            for x in outer:
                if x is not None:
                    yield x, scope
            body = node.body if isinstance(node.body, list) else [node.body]
            for x in body:
                yield x, node
            for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs + \
                    [x for x in (node.args.vararg, node.args.kwarg) if x]:
                self.bind(node, a.arg, self.off(a), "param")
            return
        if isinstance(node, ast.ClassDef):
            for x in [*node.decorator_list, *node.bases, *node.keywords]:
                yield x, scope
            for x in node.body:
                yield x, node
            return
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            yield node.generators[0].iter, scope
            for i, g in enumerate(node.generators):
                yield g.target, node
                if i:
                    yield g.iter, node
                for c in g.ifs:
                    yield c, node
            for x in ([node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]):
                yield x, node
            return
        for child in ast.iter_child_nodes(node):
            yield child, scope

    def _visit(self, node, scope):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = "def" if not isinstance(node, ast.ClassDef) and not node.decorator_list else "other"
            self.bind(scope, node.name, self.off(node), kind)
        elif isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                self.reads.append((node, scope))
            else:
                target = self.function_scope(scope) if self._walrus(node) else scope
                self.bind(self._declared(target, node.id), node.id, self.off(node))
        elif isinstance(node, ast.AnnAssign) and node.value is None and isinstance(node.target, ast.Name):
            pass
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":
                    module = load_module(node.module) if node.module and not node.level else None
                    if module is None:
                        self.open = True
                        continue
                    for n in getattr(module, "__all__", [n for n in dir(module) if not n.startswith("_")]):
                        self.bind(scope, n, -1)
                    continue
                bound = alias.asname or alias.name.split(".")[0]
                if isinstance(node, ast.Import):
                    module = alias.name if alias.asname else alias.name.split(".")[0]
                else:
                    module = f"{node.module}.{alias.name}" if node.module and not node.level else None
                    if module and importlib.util.find_spec is not None:
                        parent = load_module(node.module)
                        value = getattr(parent, alias.name, None) if parent else None
                        module = value.__name__ if inspect.ismodule(value) else None
                self.bind(self._declared(scope, bound), bound, self.off(alias),
                          ("import", module) if module else "other")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self.bind(scope, node.name, self.off(node))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            self.bind(scope, node.name, self.off(node))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self.bind(scope, node.rest, self.off(node))
        elif isinstance(node, ast.Attribute) and isinstance(node.value, (ast.Name, ast.Attribute)):
            self.attrs.append((node, scope))
        elif isinstance(node, ast.Call):
            for k in node.keywords:
                if k.arg:
                    self.keywords.append((node, k, scope))

    def _walrus(self, name):
        return False   # set by visit_NamedExpr below

    def _declared(self, scope, name):
        table = self.table_of(scope)
        if table is None or scope is self.tree:
            return scope
        try:
            sym = table.lookup(name)
        except KeyError:
            return scope
        if sym.is_declared_global():
            return self.tree
        if sym.is_nonlocal():
            s = self.parent.get(scope)
            while s is not None and s is not self.tree:
                t = self.table_of(s)
                if not isinstance(s, ast.ClassDef) and t is not None and name in t.get_identifiers() \
                        and t.lookup(name).is_local():
                    return s
                s = self.parent.get(s)
        return scope

    def resolve(self, name, scope):
        """The scope whose bindings a read of name in scope uses, or None."""
        table = self.table_of(scope)
        if table is None:
            return None
        if scope is self.tree:
            return self.tree
        try:
            sym = table.lookup(name)
        except KeyError:
            return None
        if sym.is_global():
            return self.tree
        if sym.is_local():
            return scope
        s = self.parent.get(scope)
        while s is not None:
            if s is self.tree:
                return self.tree
            t = self.table_of(s)
            if t is None:
                return None
            if not isinstance(s, ast.ClassDef) and name in t.get_identifiers() and \
                    (t.lookup(name).is_local() or t.lookup(name).is_nonlocal()):
                return s
            s = self.parent.get(s)
        return self.tree

    def inside(self, a, b):
        return a < self.end and b > self.start

    def resolves(self, name, scope, at):
        if name in MODULE_NAMES:
            return True
        target = self.resolve(name, scope)
        if target is None:
            return True        # symtable's view not found: unconstrained
        offs = self.binds.get(target, {}).get(name, [])
        if any(o < self.start or o >= self.end or o < at for o in offs):
            return True
        return target is self.tree and not offs and hasattr(builtins, name)

    def module_of(self, node, scope):
        if isinstance(node, ast.Name):
            target = self.resolve(node.id, scope)
            kinds = self.kinds.get(target, {}).get(node.id, set())
            if not kinds or any(not (isinstance(k, tuple) and k[0] == "import") for k in kinds):
                return None
            modules = {k[1] for k in kinds}
            return load_module(modules.pop()) if len(modules) == 1 else None
        if isinstance(node, ast.Attribute):
            base = self.module_of(node.value, scope)
            value = getattr(base, node.attr, None) if base else None
            return value if inspect.ismodule(value) else None
        return None

    def violations(self):
        out = []
        if not self.open:
            for node, scope in self.reads:
                a, b = self.off(node), self.off(node, True)
                if self.inside(a, b) and not self.resolves(node.id, scope, a):
                    out.append(("name", node.id, a))
        for node, scope in self.attrs:
            b = self.off(node, True)
            a = b - len(node.attr)
            if not self.inside(a, b):
                continue
            module = self.module_of(node.value, scope)
            if module is None or hasattr(module, "__getattr__"):
                continue
            if not hasattr(module, node.attr) and not submodule(module, node.attr):
                out.append(("attribute", node.attr, a))
        for call, kw, scope in self.keywords:
            a = self.off(kw)
            if not self.inside(a, a + len(kw.arg)):
                continue
            params = self.parameters(call.func, scope)
            if params is not None and kw.arg not in params:
                out.append(("keyword", kw.arg, a))
        return out

    def parameters(self, func, scope):
        if isinstance(func, ast.Name):
            target = self.resolve(func.id, scope)
            kinds = self.kinds.get(target, {}).get(func.id, set())
            if kinds != {"def"}:
                return None
            defs = [n for n in ast.walk(self.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                    and n.name == func.id]
            names = set()
            for d in defs:
                if d.args.kwarg:
                    return None
                names |= {a.arg for a in d.args.args + d.args.kwonlyargs}
            return names
        if isinstance(func, ast.Attribute):
            module = self.module_of(func.value, scope)
            obj = getattr(module, func.attr, None) if module else None
            if not inspect.isfunction(obj) or hasattr(obj, "__wrapped__") or obj.__module__ != module.__name__:
                return None
            sig = inspect.signature(obj)
            if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
                return None
            return {p.name for p in sig.parameters.values() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        return None


def _mark_walrus(tree):
    targets = {id(n.target) for n in ast.walk(tree) if isinstance(n, ast.NamedExpr)}
    return targets


def oracle(text, start, end):
    try:
        o = Oracle.__new__(Oracle)
        tree = ast.parse(text)
        walrus = _mark_walrus(tree)
        o._walrus = lambda name: id(name) in walrus
        Oracle.__init__(o, text, start, end)
        return o.violations()
    except (SyntaxError, ValueError, RecursionError):
        return None


def names_of(text):
    try:
        return sorted({n.id for n in ast.walk(ast.parse(text)) if isinstance(n, ast.Name) and len(n.id) > 3})
    except SyntaxError:
        return []


def mutants(left, middle, right, rng, foreign):
    """Mutants of the middle that break the property: (kind, middle)."""
    text = left + middle + right
    start, end = len(left), len(left) + len(middle)
    try:
        o = Oracle.__new__(Oracle)
        walrus = _mark_walrus(ast.parse(text))
        o._walrus = lambda name: id(name) in walrus
        Oracle.__init__(o, text, start, end)
    except (SyntaxError, ValueError, RecursionError):
        return
    spots = []
    for node, _ in o.reads:
        a, b = o.off(node), o.off(node, True)
        if start <= a and b <= end:
            spots.append(("misspelling", a, b, node.id))
            spots.append(("foreign", a, b, node.id))
    for node, _ in o.attrs:
        b = o.off(node, True)
        a = b - len(node.attr)
        if start <= a and b <= end and o.module_of(node.value, _) is not None:
            spots.append(("attribute", a, b, node.attr))
    for call, kw, scope in o.keywords:
        a = o.off(kw)
        if start <= a and a + len(kw.arg) <= end and o.parameters(call.func, scope) is not None:
            spots.append(("keyword", a, a + len(kw.arg), kw.arg))
    rng.shuffle(spots)
    seen = set()
    for kind, a, b, name in spots:
        if kind in seen:
            continue
        if kind == "foreign":
            new = rng.choice(foreign) if foreign else name + "_q"
        else:
            i = rng.randrange(len(name))
            new = name[:i] + name[i] * 2 + name[i + 1:] if rng.random() < 0.5 else name + "x"
        if new == name:
            continue
        m = middle[:a - start] + new + middle[b - start:]
        v = oracle(left + m + right, start, start + len(m))
        if v:
            seen.add(kind)
            yield kind, m


def run_seam(seam, cases):
    lines = "".join(json.dumps(c) + "\n" for c in cases)
    out = subprocess.run([seam, "check"], input=lines, capture_output=True, text=True, timeout=1800)
    if out.returncode != 0:
        raise SystemExit(f"seam check failed: {out.stderr[:500]}")
    return {r["id"]: r for r in map(json.loads, out.stdout.splitlines())}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seam", required=True)
    p.add_argument("--files", type=int, default=40)
    p.add_argument("--cuts", type=int, default=6)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--max-bytes", type=int, default=60000)
    p.add_argument("--min-refused", type=float, default=0.95,
                   help="the share of mutants that must be refused at the end (the target is all)")
    p.add_argument("--packages", action="store_true",
                   help="cuts of the packages installed for this python3 instead of the standard library")
    args = p.parse_args()
    rng = random.Random(args.seed)
    if args.packages:
        PACKAGES.update(e.name.split(".")[0].split("-")[0] for f in site_folders() for e in f.iterdir()
                        if not e.name.endswith((".dist-info", ".egg-info", ".pth")))
        files = package_files(args.files * 2, args.seed + 1, args.max_bytes)
    else:
        files = stdlib_files(args.files * 2, args.seed + 1, args.max_bytes)
    held, others = files[:args.files], files[args.files:]
    foreign = sorted({n for _, t in others for n in names_of(t)})
    cases, meta = [], {}
    for path, text in held:
        cuts = list(boundary_cuts(text, args.cuts, rng)) + list(randspan_cuts(text, args.cuts // 2, rng))
        for left, middle, right in cuts:
            v = oracle(text, len(left), len(left) + len(middle))
            if v is None:
                continue
            cid = len(cases)
            cases.append({"id": cid, "left": left, "middle": middle, "right": right, "semantic": True})
            meta[cid] = ("true", not v, path.name, v)
            for kind, m in (mutants(left, middle, right, rng, [n for n in foreign if n not in text])
                            if not v else ()):
                cid = len(cases)
                cases.append({"id": cid, "left": left, "middle": m, "right": right, "semantic": True})
                meta[cid] = (kind, False, path.name, None)
    results = run_seam(args.seam, cases)
    failures, missed = [], []   # true middles refused (bugs); mutants let through (short of the target)
    breaking = 0                # true middles whose program breaks the property (shown, not judged)
    counts = {}
    for cid, (kind, holds, name, v) in meta.items():
        r = results.get(cid, {})
        s = r.get("semantic", {})
        if "error" in r or "error" in s:
            continue
        c = counts.setdefault(kind, {"cases": 0, "accepted": 0, "refused_end": 0, "refused_before": 0})
        c["cases"] += 1
        m = cases[cid]["middle"]
        accepted = s.get("complete") and s.get("accepted") == len(m.encode())
        if accepted:
            c["accepted"] += 1
        else:
            c["refused_end"] += 1
            if s.get("accepted", 0) < len(m.encode()):
                c["refused_before"] += 1
        if kind == "true" and holds and not accepted:
            failures.append(f"true middle refused ({name}): {s.get('pruner')}: {s.get('why')} "
                            f"middle={m[:80]!r}")
        if kind == "true" and not holds:
            breaking += 1
            print(f"true middle that breaks the property ({name}): {v}")
        if kind != "true" and accepted:
            missed.append(f"{kind} mutant accepted ({name}): middle={m[:80]!r}")
    print(json.dumps(counts, indent=1))
    mut = [c for k, c in counts.items() if k != "true"]
    total = sum(c["cases"] for c in mut)
    before = sum(c["refused_before"] for c in mut)
    end = sum(c["refused_end"] for c in mut)
    true = counts.get("true", {})
    print(f"true middles: {true.get('cases', 0)}, with the property {true.get('cases', 0) - breaking} "
          f"(refused: {len(failures)}), breaking it {breaking} (accepted {true.get('accepted', 0) - (true.get('cases', 0) - breaking - len(failures))})")
    print(f"mutants: {total}, refused at the end {end} ({100 * end / max(1, total):.1f} %), "
          f"before their end {before} ({100 * before / max(1, total):.1f} %)")
    for f in failures[:40]:
        print("FAIL", f)
    for m in missed[:40]:
        print("MISSED", m)
    refused_end = end / max(1, total)
    if refused_end < args.min_refused:
        print(f"FAIL mutants refused at the end: {100 * refused_end:.1f} % < {100 * args.min_refused:.0f} %")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
