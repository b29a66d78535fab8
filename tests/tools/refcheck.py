#!/usr/bin/env python3
"""refcheck - a small, slow reference implementation of seam's grammar format.

It reads a grammar file as docs/GRAMMAR_FORMAT.md describes it, lexes text by
maximal munch (its own regex-to-automaton compiler, longest match, ties by
priority then definition order), applies the Python layout layer, and
recognizes the token list with a plain Earley recognizer (Aycock-Horspool
handling of nullable symbols, items indexed by their next symbol).  It is an
independent cross-check of the C engine; f-string replacement fields
(`%fstring`) are not checked here.

usage:
  refcheck.py GRAMMAR FILE...          one line per file: OK | REJECT <reason>
  refcheck.py GRAMMAR --names FILE...  the same, each line prefixed "FILE: "
  refcheck.py GRAMMAR --stdlib N [--seed S] [--big K]
        checks N standard-library files (plus K files over 50 kB) that
        CPython accepts; every one must be accepted.
  refcheck.py GRAMMAR --exhaustive [FILE...]
        every single-character mutant (delete, swap, insert one of a set of
        characters) of a built-in sample that uses most of Python 3.11's
        syntax, and of each FILE, compared with CPython.
  refcheck.py GRAMMAR --mutants FILES_N [--seed S] [--per-file M] [--max-bytes B]
        single-character mutants of FILES_N stdlib files; reports how many of
        the mutants CPython rejects are rejected here too, and lists the
        mutants where the two disagree.
Exit status 0 (the validation modes print their figures).
"""
import sys

# ---------------------------------------------------------------- regexes ----
# Pattern syntax (parser/ep_lexdfa.h): bytes, ".", classes, groups, "|",
# "* + ? {m} {m,} {m,n}", C escapes, \d \w \s.  Compiled to a Thompson NFA
# over bytes; all lexemes share one NFA, run as a lazily built DFA.

ALL = frozenset(range(256))
DIGITS = frozenset(range(48, 58))
WORD = frozenset(list(range(48, 58)) + list(range(65, 91)) + list(range(97, 123)) + [95])
SPACE = frozenset(b" \t\n\r\f\v")
SIMPLE_ESC = {ord("n"): 10, ord("r"): 13, ord("t"): 9, ord("f"): 12, ord("v"): 11, ord("0"): 0}


class GrammarError(Exception):
    pass


class Nfa:
    def __init__(self):
        self.eps = []      # state -> list of states
        self.edges = []    # state -> list of (frozenset bytes, state)
        self.accept = {}   # state -> lexeme index

    def state(self):
        self.eps.append([])
        self.edges.append([])
        return len(self.eps) - 1


class RegexParser:
    """Parses one pattern into a syntax tree, then emits an NFA fragment.
    Trees: ("bytes", set) ("seq", [trees]) ("alt", [trees])
    ("rep", tree, m, n) with n None for unbounded."""

    REPEAT_MAX = 1000

    def __init__(self, nfa, pat, name):
        self.nfa, self.p, self.i, self.name = nfa, pat, 0, name

    def err(self, msg):
        raise GrammarError("lexeme %s: %s at offset %d" % (self.name, msg, self.i))

    def peek(self):
        return self.p[self.i] if self.i < len(self.p) else None

    def parse(self):
        tree = self.alt()
        if self.i != len(self.p):
            self.err("unbalanced ')'")
        if self.nullable(tree):
            self.err("the pattern matches the empty text")
        return self.emit(tree)

    # -- parsing
    def alt(self):
        branches = [self.seq()]
        while self.peek() == ord("|"):
            self.i += 1
            branches.append(self.seq())
        return branches[0] if len(branches) == 1 else ("alt", branches)

    def seq(self):
        items = []
        while self.peek() is not None and self.peek() not in (ord("|"), ord(")")):
            items.append(self.repeat())
        return ("seq", items)

    def repeat(self):
        tree = self.atom()
        while True:
            c = self.peek()
            if c == ord("*"):
                self.i += 1
                tree = ("rep", tree, 0, None)
            elif c == ord("+"):
                self.i += 1
                tree = ("rep", tree, 1, None)
            elif c == ord("?"):
                self.i += 1
                tree = ("rep", tree, 0, 1)
            elif c == ord("{"):
                lo, hi = self.bound()
                tree = ("rep", tree, lo, hi)
            else:
                return tree

    def number(self):
        j = self.i
        while self.i < len(self.p) and 48 <= self.p[self.i] <= 57:
            self.i += 1
        return int(self.p[j:self.i]) if self.i > j else None

    def bound(self):
        self.i += 1
        lo = self.number()
        if lo is None:
            self.err("'{' must start a count {m}, {m,} or {m,n}")
        hi = lo
        if self.peek() == ord(","):
            self.i += 1
            hi = self.number()
        if self.peek() != ord("}"):
            self.err("unterminated count")
        self.i += 1
        if lo > self.REPEAT_MAX or (hi is not None and hi > self.REPEAT_MAX):
            self.err("repetition count over %d" % self.REPEAT_MAX)
        if hi is not None and hi < lo:
            self.err("{m,n} needs m <= n")
        return lo, hi

    def escape(self):
        """After a backslash: returns a set of bytes."""
        c = self.peek()
        if c is None:
            self.err("trailing backslash")
        self.i += 1
        if c in SIMPLE_ESC:
            return {SIMPLE_ESC[c]}
        if c == ord("x"):
            h = self.p[self.i:self.i + 2]
            if len(h) != 2 or any(chr(b) not in "0123456789abcdefABCDEF" for b in h):
                self.err("bad \\x escape")
            self.i += 2
            return {int(h, 16)}
        if c == ord("d"):
            return set(DIGITS)
        if c == ord("w"):
            return set(WORD)
        if c == ord("s"):
            return set(SPACE)
        if (48 <= c <= 57) or (65 <= c <= 90) or (97 <= c <= 122):
            self.err("unknown escape \\%c" % c)
        return {c}

    def atom(self):
        c = self.peek()
        if c == ord("("):
            self.i += 1
            tree = self.alt()
            if self.peek() != ord(")"):
                self.err("missing ')'")
            self.i += 1
            return tree
        if c == ord("["):
            return ("bytes", self.bracket())
        if c == ord("."):
            self.i += 1
            return ("bytes", ALL - {10})
        if c == ord("\\"):
            self.i += 1
            return ("bytes", self.escape())
        if c in (ord("*"), ord("+"), ord("?"), ord("{")):
            self.err("repetition operator with nothing to repeat")
        self.i += 1
        return ("bytes", {c})

    def bracket(self):
        self.i += 1
        neg = False
        if self.peek() == ord("^"):
            neg = True
            self.i += 1
        if self.peek() == ord("]"):
            self.err("empty class (write \\] for a ']' byte)")
        out = set()
        while True:
            c = self.peek()
            if c is None:
                self.err("missing ']'")
            if c == ord("]"):
                self.i += 1
                break
            self.i += 1
            lo = self.escape() if c == ord("\\") else {c}
            if (self.peek() == ord("-") and self.i + 1 < len(self.p)
                    and self.p[self.i + 1] != ord("]")):
                self.i += 1
                c2 = self.peek()
                self.i += 1
                hi = self.escape() if c2 == ord("\\") else {c2}
                if len(hi) != 1 or len(lo) != 1:
                    self.err("a range needs a single byte at each end")
                a, b = next(iter(lo)), next(iter(hi))
                if b < a:
                    self.err("reversed range")
                out.update(range(a, b + 1))
            else:
                out.update(lo)
        out = ALL - out if neg else out
        if not out:
            self.err("the class matches no byte")
        return out

    def nullable(self, t):
        k = t[0]
        if k == "bytes":
            return False
        if k == "seq":
            return all(self.nullable(x) for x in t[1])
        if k == "alt":
            return any(self.nullable(x) for x in t[1])
        return t[2] == 0 or self.nullable(t[1])

    # -- NFA emission (Thompson)
    def emit(self, t):
        nfa = self.nfa
        k = t[0]
        if k == "bytes":
            s, e = nfa.state(), nfa.state()
            nfa.edges[s].append((frozenset(t[1]), e))
            return s, e
        if k == "seq":
            s = nfa.state()
            cur = s
            for x in t[1]:
                a, b = self.emit(x)
                nfa.eps[cur].append(a)
                cur = b
            return s, cur
        if k == "alt":
            s, e = nfa.state(), nfa.state()
            for x in t[1]:
                a, b = self.emit(x)
                nfa.eps[s].append(a)
                nfa.eps[b].append(e)
            return s, e
        _, sub, lo, hi = t
        s = nfa.state()
        cur = s
        for _ in range(lo):
            a, b = self.emit(sub)
            nfa.eps[cur].append(a)
            cur = b
        if hi is None:
            a, b = self.emit(sub)
            e = nfa.state()
            nfa.eps[cur] += [a, e]
            nfa.eps[b] += [a, e]
            return s, e
        e = nfa.state()
        for _ in range(hi - lo):
            a, b = self.emit(sub)
            nfa.eps[cur] += [a, e]
            cur = b
        nfa.eps[cur].append(e)
        return s, e


# ---------------------------------------------------------------- grammar ----

class Lexeme:
    def __init__(self, name, pattern, literal, index):
        self.name, self.pattern, self.literal, self.index = name, pattern, literal, index
        self.priority = 1 if literal else 0
        self.ignore = self.comment = self.newline = self.continuation = False
        self.error = self.fstring = False


class Grammar:
    def __init__(self):
        self.lexemes = {}        # name (NAME or "text") -> Lexeme
        self.rules = {}          # nonterminal -> list of alternatives (lists of symbols)
        self.rule_order = []
        self.start = None
        self.layout = None
        self.declared = set()
        self.soft = {}           # literal lexeme name -> terminal it may also be
        self.gen = 0

    # -- symbols: terminals are UPPER names and '"text"'; the rest nonterminals
    @staticmethod
    def is_terminal(sym):
        return sym.startswith('"') or sym[:1].isupper()

    def literal(self, text):
        name = '"' + text + '"'
        if name not in self.lexemes:
            self.lexemes[name] = Lexeme(name, text.encode(), True, len(self.lexemes))
        return name

    def fresh(self, alts):
        self.gen += 1
        name = "_g%d" % self.gen
        self.rules[name] = alts
        self.rule_order.append(name)
        return name


def strip_comment(line):
    """Removes a '#' comment outside quotes and /regex/ literals."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == '"':
            i += 1
            while i < n and line[i] != '"':
                i += 2 if line[i] == "\\" else 1
            i += 1
        elif c == "/":
            i += 1
            while i < n and line[i] != "/":
                if line[i] == "\\":
                    i += 1
                elif line[i] == "[":
                    # a class may hold an unescaped '/'
                    i += 1
                    if i < n and line[i] == "^":
                        i += 1
                    if i < n and line[i] == "]":
                        i += 1
                    while i < n and line[i] != "]":
                        i += 2 if line[i] == "\\" else 1
                i += 1
            i += 1
        elif c == "#":
            return line[:i]
        else:
            i += 1
    return line


def tokenize_def(text, where):
    toks = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c == '"':
            j = i + 1
            buf = []
            while j < n and text[j] != '"':
                if text[j] == "\\" and j + 1 < n:
                    buf.append(text[j + 1])
                    j += 2
                else:
                    buf.append(text[j])
                    j += 1
            if j >= n:
                raise GrammarError("%s: unterminated literal" % where)
            toks.append(("LIT", "".join(buf)))
            i = j + 1
        elif c == "/":
            j = i + 1
            while j < n and text[j] != "/":
                if text[j] == "\\":
                    j += 2
                elif text[j] == "[":
                    j += 1
                    if j < n and text[j] == "^":
                        j += 1
                    if j < n and text[j] == "]":
                        j += 1
                    while j < n and text[j] != "]":
                        j += 2 if text[j] == "\\" else 1
                    j += 1
                else:
                    j += 1
            if j >= n:
                raise GrammarError("%s: unterminated /regex/" % where)
            toks.append(("RE", text[i + 1:j]))
            i = j + 1
        elif c == "%":
            j = i + 1
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(("DIR", text[i + 1:j]))
            i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (text[j].isalnum() or text[j] == "_"):
                j += 1
            toks.append(("ID", text[i:j]))
            i = j
        elif c == "-" or c.isdigit():
            j = i + 1
            while j < n and text[j].isdigit():
                j += 1
            toks.append(("INT", text[i:j]))
            i = j
        elif c in "|()[]*+?.":
            toks.append((c, c))
            i += 1
        else:
            raise GrammarError("%s: unexpected character %r" % (where, c))
    return toks


class RuleParser:
    def __init__(self, g, toks, where):
        self.g, self.t, self.i, self.where = g, toks, 0, where

    def peek(self):
        return self.t[self.i][0] if self.i < len(self.t) else None

    def err(self, msg):
        raise GrammarError("%s: %s" % (self.where, msg))

    def alts(self, closing):
        out = [self.seq()]
        while self.peek() == "|":
            self.i += 1
            out.append(self.seq())
        if self.peek() != closing:
            self.err("unexpected %r" % (self.t[self.i][1] if self.i < len(self.t) else "end"))
        return out

    def seq(self):
        items = []
        while self.peek() not in (None, "|", ")", "]"):
            items.extend(self.item())
        return items

    def group(self, alts):
        if len(alts) == 1 and len(alts[0]) == 1:
            return alts[0][0]
        return self.g.fresh(alts)

    def atom(self):
        kind = self.peek()
        if kind is None:
            self.err("missing item")
        val = self.t[self.i][1]
        self.i += 1
        if kind == "LIT":
            if val == "":
                self.err("empty literal")
            return [self.g.literal(val)]
        if kind == "ID":
            return [val]
        if kind == "DIR" and val == "empty":
            return []
        if kind == "(":
            a = self.alts(")")
            self.i += 1
            return [self.group(a)]
        if kind == "[":
            a = self.alts("]")
            self.i += 1
            return [self.g.fresh(a + [[]])]
        self.err("unexpected %r" % val)

    def item(self):
        syms = self.atom()
        while True:
            k = self.peek()
            if k in ("*", "+", "?"):
                self.i += 1
                x = self.seq_symbol(syms)
                if k == "?":
                    syms = [self.g.fresh([[x], []])]
                else:
                    rep = self.g.fresh([])
                    self.g.rules[rep] = [[rep, x], [] if k == "*" else [x]]
                    syms = [rep]
            elif k == "." and self.i + 1 < len(self.t):
                self.i += 1
                sep = self.seq_symbol(syms)
                x = self.seq_symbol(self.atom())
                if self.peek() != "+":
                    self.err("'s.x' must be followed by '+'")
                self.i += 1
                rep = self.g.fresh([])
                self.g.rules[rep] = [[rep, sep, x], [x]]
                syms = [rep]
            else:
                return syms

    def seq_symbol(self, syms):
        if len(syms) == 1:
            return syms[0]
        return self.g.fresh([syms])


def load_grammar(path):
    g = Grammar()
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    defs = []  # (lineno, name, body)
    for no, raw in enumerate(lines, 1):
        line = strip_comment(raw).rstrip()
        if not line.strip():
            continue
        if line[0] in " \t":
            if not defs or defs[-1][1] is None:
                raise GrammarError("line %d: continuation without a definition" % no)
            defs[-1][2].append(line)
            continue
        if line.startswith("%"):
            parts = line.split()
            d = parts[0]
            if d == "%start":
                g.start = parts[1]
            elif d == "%layout":
                g.layout = parts[1]
            elif d == "%declare":
                g.declared.update(parts[1:])
            elif d == "%soft":
                toks = tokenize_def(" ".join(parts[1:]), "line %d" % no)
                target = toks[0][1]
                for kind, val in toks[1:]:
                    if kind != "LIT":
                        raise GrammarError("line %d: %%soft takes literals" % no)
                    g.soft[g.literal(val)] = target
            else:
                raise GrammarError("line %d: unknown directive %s" % (no, d))
            defs.append((no, None, []))
            continue
        name, sep, body = line.partition(":")
        name = name.strip()
        if not sep or not name.replace("_", "a").isalnum():
            raise GrammarError("line %d: expected 'name:'" % no)
        defs.append((no, name, [body]))
    for no, name, body in defs:
        if name is None:
            continue
        where = "line %d (%s)" % (no, name)
        toks = tokenize_def(" ".join(body), where)
        if Grammar.is_terminal(name):
            if not toks or toks[0][0] not in ("RE", "LIT"):
                raise GrammarError("%s: a lexeme needs a pattern" % where)
            if name in g.lexemes:
                raise GrammarError("%s: lexeme defined twice" % where)
            lx = Lexeme(name, toks[0][1].encode("utf-8"), toks[0][0] == "LIT", len(g.lexemes))
            lx.priority = 0
            k = 1
            while k < len(toks):
                kind, val = toks[k]
                if kind != "DIR":
                    raise GrammarError("%s: unexpected %r after the pattern" % (where, val))
                if val == "priority":
                    k += 1
                    lx.priority = int(toks[k][1])
                elif val in ("ignore", "comment", "newline", "continuation", "error", "fstring"):
                    setattr(lx, val, True)
                else:
                    raise GrammarError("%s: unknown option %%%s" % (where, val))
                k += 1
            g.lexemes[name] = lx
        else:
            if name in g.rules and not name.startswith("_g"):
                raise GrammarError("%s: rule defined twice" % where)
            g.rule_order.append(name)
            p = RuleParser(g, toks, where)
            g.rules[name] = p.alts(None)
            if g.start is None:
                g.start = name
    # check every symbol is defined
    for lhs in g.rule_order:
        for alt in g.rules[lhs]:
            for s in alt:
                if Grammar.is_terminal(s):
                    if s not in g.lexemes and s not in g.declared:
                        raise GrammarError("undefined terminal %s in %s" % (s, lhs))
                elif s not in g.rules:
                    raise GrammarError("undefined rule %s in %s" % (s, lhs))
    if g.start not in g.rules:
        raise GrammarError("start rule %s undefined" % g.start)
    return g


# ------------------------------------------------------------------ lexer ----

class Lexer:
    def __init__(self, g):
        self.g = g
        self.lex = sorted(g.lexemes.values(), key=lambda l: l.index)
        nfa = Nfa()
        self.start_state = nfa.state()
        for idx, lx in enumerate(self.lex):
            if lx.literal:
                s = nfa.state()
                cur = s
                for b in lx.pattern:
                    nxt = nfa.state()
                    nfa.edges[cur].append((frozenset([b]), nxt))
                    cur = nxt
                end = cur
            else:
                s, end = RegexParser(nfa, lx.pattern, lx.name).parse()
            nfa.eps[self.start_state].append(s)
            nfa.accept[end] = idx
        self.nfa = nfa
        self.dstates = {}
        self.dlist = []      # id -> (frozenset, winner index or -1)
        self.trans = {}
        self.dstart = self.dfa_state(self.closure([self.start_state]))
        # a lexeme that accepts the empty text is a grammar error
        if self.dlist[self.dstart][1] != -1:
            raise GrammarError("lexeme %s matches the empty text" % self.lex[self.dlist[self.dstart][1]].name)

    def closure(self, states):
        seen = set(states)
        stack = list(states)
        eps = self.nfa.eps
        while stack:
            s = stack.pop()
            for t in eps[s]:
                if t not in seen:
                    seen.add(t)
                    stack.append(t)
        return frozenset(seen)

    def winner_of(self, states):
        best = -1
        for s in states:
            idx = self.nfa.accept.get(s)
            if idx is not None:
                if best == -1:
                    best = idx
                else:
                    a, b = self.lex[idx], self.lex[best]
                    if a.priority > b.priority or (a.priority == b.priority and a.index < b.index):
                        best = idx
        return best

    def dfa_state(self, states):
        d = self.dstates.get(states)
        if d is None:
            d = len(self.dlist)
            self.dstates[states] = d
            self.dlist.append((states, self.winner_of(states)))
        return d

    def step(self, d, byte):
        key = (d, byte)
        n = self.trans.get(key)
        if n is None:
            nxt = []
            for s in self.dlist[d][0]:
                for bs, t in self.nfa.edges[s]:
                    if byte in bs:
                        nxt.append(t)
            n = self.dfa_state(self.closure(nxt)) if nxt else -1
            self.trans[key] = n
        return n

    def tokens(self, data):
        """Yields (lexeme, start, end); raises LexError."""
        pos, n = 0, len(data)
        out = []
        dl = self.dlist
        while pos < n:
            d = self.dstart
            best, best_end = -1, pos
            i = pos
            while i < n:
                d = self.step(d, data[i])
                if d < 0:
                    break
                i += 1
                w = dl[d][1]
                if w >= 0:
                    best, best_end = w, i
            if best < 0:
                raise LexError(pos, "no lexeme matches")
            lx = self.lex[best]
            if lx.error:
                raise LexError(pos, "error lexeme %s" % lx.name)
            out.append((lx, pos, best_end))
            pos = best_end
        return out


class LexError(Exception):
    def __init__(self, pos, msg):
        Exception.__init__(self, msg)
        self.pos, self.msg = pos, msg


def line_col(data, pos):
    """1-based line and column (in bytes) of offset pos; \r\n, \r and \n
    each end a line."""
    head = data[:pos].replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    line = head.count(b"\n") + 1
    return line, len(head) - (head.rfind(b"\n") + 1) + 1


# ----------------------------------------------------------------- layout ----
# Token for the parser: (terminal set, start, end, text)

OPEN, CLOSE = {b"(", b"[", b"{"}, {b")", b"]", b"}"}
MAXINDENT = 100   # CPython: "too many levels of indentation"
MAXLEVEL = 200    # CPython: "too many nested parentheses"


class LayoutError(Exception):
    def __init__(self, pos, msg):
        Exception.__init__(self, msg)
        self.pos, self.msg = pos, msg


def terminals_of(g, lx):
    soft = g.soft.get(lx.name)
    return frozenset((lx.name, soft)) if soft else frozenset((lx.name,))


def python_layout(g, lexed, data):
    NL, IND, DED, END = (frozenset([x]) for x in ("NEWLINE", "INDENT", "DEDENT", "ENDMARKER"))
    out = []
    ind, alt = [0], [0]
    depth = 0
    at_bol = True          # at the start of a logical line, measuring indentation
    col = altcol = 0
    cont_col = 0
    line_has_tokens = False
    last_cont_end = -1     # end of the last continuation token
    for lx, s, e in lexed:
        text = data[s:e]
        if lx.ignore:
            if at_bol:
                for b in text:
                    if b == 32:
                        col += 1
                        altcol += 1
                    elif b == 9:
                        col = (col // 8 + 1) * 8
                        altcol += 1
                    elif b == 12:
                        col = altcol = 0
            continue
        if lx.continuation:
            if at_bol and depth == 0:
                cont_col = cont_col or col
            last_cont_end = e
            continue
        if lx.comment:
            continue
        if lx.newline:
            if depth == 0 and line_has_tokens:
                out.append((NL, s, s))
                line_has_tokens = False
            if depth == 0 or at_bol:
                at_bol = True
                col = altcol = cont_col = 0
            continue
        # a real token
        if at_bol and depth == 0 and not line_has_tokens:
            c = cont_col if cont_col else col
            a = cont_col if cont_col else altcol
            if c == ind[-1]:
                if a != alt[-1]:
                    raise LayoutError(s, "inconsistent use of tabs and spaces in indentation")
            elif c > ind[-1]:
                if len(ind) >= MAXINDENT:
                    raise LayoutError(s, "too many levels of indentation")
                if a <= alt[-1]:
                    raise LayoutError(s, "inconsistent use of tabs and spaces in indentation")
                ind.append(c)
                alt.append(a)
                out.append((IND, s, s))
            else:
                while len(ind) > 1 and c < ind[-1]:
                    ind.pop()
                    alt.pop()
                    out.append((DED, s, s))
                if c != ind[-1]:
                    raise LayoutError(s, "unindent does not match any outer indentation level")
                if a != alt[-1]:
                    raise LayoutError(s, "inconsistent use of tabs and spaces in indentation")
        at_bol = False
        line_has_tokens = True
        if text in OPEN:
            if depth >= MAXLEVEL:
                raise LayoutError(s, "too many nested parentheses")
            depth += 1
        elif text in CLOSE and depth > 0:
            depth -= 1
        out.append((terminals_of(g, lx), s, e))
    n = len(data)
    if last_cont_end == n and not data.endswith(b"\r\n"):
        raise LayoutError(n, "unexpected end of file after a line continuation")
    if line_has_tokens:
        out.append((NL, n, n))
    for _ in ind[1:]:
        out.append((DED, n, n))
    out.append((END, n, n))
    return out


# ----------------------------------------------------------------- Earley ----

class GrammarTables:
    """Flattened rules, nullable symbols and FIRST sets."""

    def __init__(self, g):
        self.g = g
        names = list(g.rules)
        # rules: list of (lhs, rhs tuple)
        self.rules = []
        self.by_lhs = {n: [] for n in names}
        for n in names:
            for alt in g.rules[n]:
                self.by_lhs[n].append(len(self.rules))
                self.rules.append((n, tuple(alt)))
        is_t = Grammar.is_terminal
        # nullable
        nullable = set()
        changed = True
        while changed:
            changed = False
            for lhs, rhs in self.rules:
                if lhs not in nullable and all((not is_t(s)) and s in nullable for s in rhs):
                    nullable.add(lhs)
                    changed = True
        self.nullable = nullable
        # FIRST sets (terminals)
        first = {n: set() for n in names}
        changed = True
        while changed:
            changed = False
            for lhs, rhs in self.rules:
                f = first[lhs]
                before = len(f)
                for s in rhs:
                    if is_t(s):
                        f.add(s)
                        break
                    f |= first[s]
                    if s not in nullable:
                        break
                if len(f) != before:
                    changed = True
        self.first = first
        # FIRST of each rule suffix, used to filter predictions by the next token
        self.rule_first = []
        for lhs, rhs in self.rules:
            f = set()
            for s in rhs:
                if is_t(s):
                    f.add(s)
                    break
                f |= first[s]
                if s not in nullable:
                    break
            self.rule_first.append(frozenset(f))


class Checker:
    def __init__(self, grammar_path):
        self.g = load_grammar(grammar_path)
        self.lexer = Lexer(self.g)
        self.rec = EarleyRecognizer(self.g)

    def tokens(self, data):
        lexed = self.lexer.tokens(data)
        if self.g.layout == "python":
            return python_layout(self.g, lexed, data)
        return [(terminals_of(self.g, lx), s, e) for lx, s, e in lexed
                if not (lx.ignore or lx.comment or lx.newline or lx.continuation)]

    def check(self, data):
        """Returns None if accepted, else a reason string."""
        try:
            toks = self.tokens(data)
        except LexError as e:
            return "lexer: %s at %d:%d" % ((e.msg,) + line_col(data, e.pos))
        except LayoutError as e:
            return "layout: %s at %d:%d" % ((e.msg,) + line_col(data, e.pos))
        fail = self.rec.recognize(toks)
        if fail is None:
            return None
        if fail >= len(toks):
            return "parser: unexpected end of input"
        tset, s, e = toks[fail][:3]
        what = data[s:e].decode("utf-8", "replace") if e > s else "/".join(sorted(tset))
        return "parser: unexpected %r at %d:%d" % ((what,) + line_col(data, s))


class EarleyRecognizer:
    """Earley recognizer; items are (rule, dot, origin).  Nullable symbols are
    skipped at prediction (Aycock-Horspool); predictions are filtered by the
    next token (a rule is predicted only if its FIRST set meets the token's
    terminals, or if it can derive the empty text)."""

    def __init__(self, g):
        base = GrammarTables(g)
        self.g = g
        self.rules = base.rules
        self.by_lhs = base.by_lhs
        self.nullable = base.nullable
        self.first = base.first
        self.rule_first = base.rule_first
        is_t = Grammar.is_terminal
        self.rule_nullable = [all((not is_t(s)) and s in base.nullable for s in rhs)
                              for _, rhs in base.rules]
        # pre-split rule right-hand sides
        self.rhs = [rhs for _, rhs in base.rules]
        self.lhs = [lhs for lhs, _ in base.rules]
        self.term = {s for _, rhs in base.rules for s in rhs if is_t(s)}

    def recognize(self, toks):
        """toks: list of (terminal set, start, end).  Returns None when the
        token list derives from the start rule, else the index of the first
        token that cannot be scanned (len(toks) when the input ends early)."""
        rules_rhs, rules_lhs = self.rhs, self.lhs
        by_lhs, nullable, first = self.by_lhs, self.nullable, self.first
        rule_first, rule_nullable = self.rule_first, self.rule_nullable
        term = self.term
        ntok = len(toks)
        start = self.g.start
        sets = []   # per set: dict symbol -> list of items waiting on it
        i = 0
        agenda = []
        seen = set()
        predicted = set()
        completed_start = False

        la = toks[0][0] if ntok else frozenset()

        def predict(nt):
            predicted.add(nt)
            for r in by_lhs[nt]:
                if rule_nullable[r] or (rule_first[r] & la):
                    it = (r, 0, i)
                    if it not in seen:
                        seen.add(it)
                        agenda.append(it)

        predict(start)
        while True:
            waiting = {}
            while agenda:
                item = agenda.pop()
                r, d, o = item
                rhs = rules_rhs[r]
                if d < len(rhs):
                    s = rhs[d]
                    lst = waiting.get(s)
                    if lst is None:
                        waiting[s] = [item]
                    else:
                        lst.append(item)
                    if s not in term:
                        if s in nullable:
                            it = (r, d + 1, o)
                            if it not in seen:
                                seen.add(it)
                                agenda.append(it)
                        if s not in predicted and (s in nullable or first[s] & la):
                            predict(s)
                else:
                    lhs = rules_lhs[r]
                    if o == i:
                        # empty (or same-set) completion: the nullable skip has
                        # advanced every item waiting on lhs in this set already,
                        # as lhs derives the empty text here only if nullable.
                        if lhs == start and o == 0 and i == ntok:
                            completed_start = True
                        continue
                    if lhs == start and o == 0 and i == ntok:
                        completed_start = True
                    for w in sets[o].get(lhs, ()):
                        it = (w[0], w[1] + 1, w[2])
                        if it not in seen:
                            seen.add(it)
                            agenda.append(it)
            sets.append(waiting)
            if i == ntok:
                if completed_start or (ntok == 0 and start in nullable):
                    return None
                return ntok
            tset = toks[i][0]
            nxt = []
            for t in tset:
                for (r, d, o) in waiting.get(t, ()):
                    nxt.append((r, d + 1, o))
            if not nxt:
                return i
            i += 1
            la = toks[i][0] if i < ntok else frozenset()
            seen = set(nxt)
            predicted = set()
            agenda = nxt


# ------------------------------------------------------------- validation ----

def cpython_accepts(text):
    import ast
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(text)
            return True
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            return False


def stdlib_paths():
    import sysconfig
    from pathlib import Path
    root = Path(sysconfig.get_paths()["stdlib"])
    return sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)


def readable(path):
    try:
        data = path.read_bytes()
        text = data.decode("utf-8")
    except (UnicodeDecodeError, OSError):
        return None
    if "\0" in text or not cpython_accepts(text):
        return None
    return data


def run_stdlib(checker, count, seed, big):
    import random
    import time
    paths = stdlib_paths()
    rng = random.Random(seed)
    rng.shuffle(paths)
    chosen, bigs = [], []
    for p in paths:
        if len(chosen) >= count and len(bigs) >= big:
            break
        size = p.stat().st_size
        if size > 50000:
            if len(bigs) < big and readable(p) is not None:
                bigs.append(p)
            continue
        if len(chosen) < count and readable(p) is not None:
            chosen.append(p)
    ok = 0
    total_bytes = 0
    t0 = time.time()
    slowest = (0, None)
    for p in chosen + bigs:
        data = p.read_bytes()
        t = time.time()
        reason = checker.check(data)
        dt = time.time() - t
        slowest = max(slowest, (dt, str(p)))
        total_bytes += len(data)
        if reason is None:
            ok += 1
        else:
            print("FAIL %s: %s" % (p, reason), flush=True)
    print("stdlib: %d of %d files accepted (%d under 50 kB, %d over; seed %d); "
          "%d bytes in %.1f s; slowest %.1f s (%s)"
          % (ok, len(chosen) + len(bigs), len(chosen), len(bigs), seed, total_bytes,
             time.time() - t0, slowest[0], slowest[1]))


INSERTED = list("():,=.\"' \n") + ["letter"] + list("[]{}\t#\\*@")


def mutants(text, count, rng):
    n = len(text)
    for _ in range(count):
        kind = rng.choice(("delete", "insert", "swap"))
        if kind == "delete" and n > 0:
            k = rng.randrange(n)
            yield kind, k, text[:k] + text[k + 1:]
        elif kind == "insert":
            k = rng.randrange(n + 1)
            c = rng.choice(INSERTED)
            if c == "letter":
                c = rng.choice("abcdefghijklmnopqrstuvwxyz_ABEFJOX")
            yield "insert %r" % c, k, text[:k] + c + text[k:]
        elif n > 1:
            k = rng.randrange(n - 1)
            if text[k] != text[k + 1]:
                yield kind, k, text[:k] + text[k + 1] + text[k] + text[k + 2:]


def fstring_spans(checker, data):
    """Byte spans of f-string tokens of the original text."""
    spans = []
    for lx, s, e in checker.lexer.tokens(data):
        if lx.fstring:
            j = s
            while data[j:j + 1] not in (b"'", b'"'):
                j += 1
            if b"f" in data[s:j].lower():
                spans.append((s, e))
    return spans


def run_mutants(checker, nfiles, seed, per_file, max_bytes):
    import random
    import time
    paths = stdlib_paths()
    rng = random.Random(seed)
    rng.shuffle(paths)
    files = []
    for p in paths:
        if len(files) >= nfiles:
            break
        if p.stat().st_size > max_bytes or p.stat().st_size < 2000:
            continue
        data = readable(p)
        if data is None or checker.check(data) is not None:
            continue
        files.append((p, data))
    rejected = agree = excluded = cp_ok = cp_ok_we_reject = 0
    disagreements = []
    t0 = time.time()
    for p, data in files:
        text = data.decode("utf-8")
        spans = fstring_spans(checker, data)
        for kind, k, mtext in mutants(text, per_file, rng):
            bk = len(text[:k].encode("utf-8"))
            in_f = any(s <= bk < e for s, e in spans)
            cp = cpython_accepts(mtext)
            ours = checker.check(mtext.encode("utf-8"))
            if cp:
                cp_ok += 1
                if ours is not None and not in_f:
                    cp_ok_we_reject += 1
                    disagreements.append(("cpython-accepts", p, kind, k, mtext, ours))
                continue
            if in_f:
                excluded += 1
                continue
            rejected += 1
            if ours is not None:
                agree += 1
            else:
                disagreements.append(("we-accept", p, kind, k, mtext, None))
    print("mutants: %d files, %d mutants per file, seed %d, %.0f s"
          % (len(files), per_file, seed, time.time() - t0))
    print("  CPython rejects %d (plus %d inside f-strings, excluded); refcheck rejects %d "
          "of them (%.3f%%)" % (rejected, excluded, agree, 100.0 * agree / max(rejected, 1)))
    print("  CPython accepts %d; refcheck rejects %d of those" % (cp_ok, cp_ok_we_reject))
    for what, p, kind, k, mtext, ours in disagreements:
        line = mtext[:k].count("\n") + 1
        ls = mtext.rfind("\n", 0, k) + 1
        le = mtext.find("\n", k)
        snippet = mtext[ls:le if le >= 0 else len(mtext)]
        print("  DISAGREE %s %s %s at line %d: %r%s" % (what, p.name, kind, line, snippet[:120],
                                                         "" if ours is None else "  [" + ours + "]"))


# A sample that uses most of Python 3.11's syntax, for exhaustive mutants
# (the standard library has few match statements, except* clauses and the like).
RICH_SAMPLE = 'import a.b as c\nfrom .. import (d, e as f,)\n@dec(1)\nasync def g(x, /, y: int = 2, *args: *T, z, **kw) -> list[int]:\n    global q\n    async with (open(x) as h, k):\n        await h\n    async for i in y:\n        yield i\n    return [j async for j in y if j] or {k: v for k, v in kw.items()}\nclass C(B, metaclass=M):\n    def m(self, a=1, *, b): return lambda p, *q, r=3, **s: (p := 1)\nmatch cmd:\n    case [1, *rest] | (2 | 3) as w if w:\n        pass\n    case {"k": -1.5+2j, **other}:\n        pass\n    case P(x=0, y=[_, *_]) | a.b.c:\n        pass\n    case _:\n        del x[1:2, ::3], y.z\ntry:\n    raise E from None\nexcept* (E, F) as err:\n    x @= y ** -z\nelse:\n    x, *y = *a, b\nfinally:\n    assert not a is not b, "m"\nwhile (n := f(*a, **k)) < 10 <= m: n += 1; continue\nfor i, in x: print(i if i else ~i, end=b"" rb\'\\n\')\nx = [*a, (yield from b)] if c else 0x_f + 0o7 + 0b1 + 1_0.5e-3j + .5 + 1.\ns = f(x for x in y)[...]\nt = \'a\' "b" r\'\\d\' """tri\nple""" f"{x!r:>{w}}"\n'

EXHAUSTIVE_INSERTED = list("():,=.\"' \n[]{}\t#\\*@xj_0")


def run_exhaustive(checker, texts):
    """Every single-character mutant of each text: each deletion, each swap
    of adjacent different characters, each insertion of EXHAUSTIVE_INSERTED."""
    import time
    t0 = time.time()
    for name, text in texts:
        spans = fstring_spans(checker, text.encode("utf-8"))
        muts = []
        for k in range(len(text)):
            muts.append(("delete", k, text[:k] + text[k + 1:]))
            if k + 1 < len(text) and text[k] != text[k + 1]:
                muts.append(("swap", k, text[:k] + text[k + 1] + text[k] + text[k + 2:]))
            for c in EXHAUSTIVE_INSERTED:
                muts.append(("insert %r" % c, k, text[:k] + c + text[k:]))
        rejected = agree = excluded = cp_ok = wrong = 0
        for kind, k, m in muts:
            bk = len(text[:k].encode("utf-8"))
            in_f = any(s <= bk < e for s, e in spans)
            cp = cpython_accepts(m)
            ours = checker.check(m.encode("utf-8"))
            if cp:
                cp_ok += 1
                if ours is not None and not in_f:
                    wrong += 1
                    print("  DISAGREE cpython-accepts %s %s at %d: %r  [%s]"
                          % (name, kind, k, m[max(0, k - 30):k + 30], ours))
                continue
            if in_f:
                excluded += 1
                continue
            rejected += 1
            if ours is not None:
                agree += 1
            else:
                print("  DISAGREE we-accept %s %s at %d: %r" % (name, kind, k, m[max(0, k - 30):k + 30]))
        print("exhaustive %s: %d mutants; CPython rejects %d (plus %d inside f-strings, "
              "excluded), refcheck rejects %d of them (%.3f%%); CPython accepts %d, "
              "refcheck rejects %d of those; %.0f s"
              % (name, len(muts), rejected, excluded, agree, 100.0 * agree / max(rejected, 1),
                 cp_ok, wrong, time.time() - t0))


def main(argv):
    args = argv[1:]
    if not args:
        print(__doc__)
        return 2
    try:
        checker = Checker(args[0])
    except GrammarError as e:
        print("grammar error: %s" % e)
        return 2
    rest = args[1:]
    opts = {}
    names = False
    files = []
    k = 0
    while k < len(rest):
        a = rest[k]
        if a == "--names":
            names = True
        elif a == "--exhaustive":
            opts[a] = True
        elif a in ("--stdlib", "--seed", "--big", "--mutants", "--per-file", "--max-bytes"):
            opts[a] = int(rest[k + 1])
            k += 1
        else:
            files.append(a)
        k += 1
    seed = opts.get("--seed", 1)
    if "--stdlib" in opts:
        run_stdlib(checker, opts["--stdlib"], seed, opts.get("--big", 5))
    if "--mutants" in opts:
        run_mutants(checker, opts["--mutants"], seed, opts.get("--per-file", 300),
                    opts.get("--max-bytes", 12000))
    if "--exhaustive" in opts:
        texts = [("RICH_SAMPLE", RICH_SAMPLE)]
        for f in files:
            with open(f, encoding="utf-8") as fh:
                texts.append((f, fh.read()))
        run_exhaustive(checker, texts)
        return 0
    for f in files:
        with open(f, "rb") as fh:
            data = fh.read()
        reason = checker.check(data)
        line = "OK" if reason is None else "REJECT " + reason
        print((f + ": " + line) if names else line, flush=True)
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(10000)
    sys.exit(main(sys.argv))
