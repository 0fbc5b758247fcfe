#!/usr/bin/env python3
"""Include graph between the project's folders: fails on a cycle.

Every `#include "..."` of the project's .c/.h files is resolved the way the
compiler does (the including file's folder, then -I. and -Iinclude) and mapped
to its module: the top-level folder, and runtime/<sub> as a module of its own.
A cycle between modules is printed with the files that make each of its edges.
The one-way rules of docs/architecture.md are checked too.
Usage: include_cycles.py [ROOT]   (prints 'N passed, N failed')
"""
import os
import re
import sys

SRC_DIRS = ["analyze", "cli", "dump", "include", "record", "reports", "runtime",
            "tracer", "tui", "tune", "util"]
INC_PATHS = [".", "include"]
# docs/architecture.md: the runtime and the tracer never include the front ends
# nor the store's readers
FORBIDDEN = [("runtime/", ["analyze", "tui", "reports", "cli", "record", "tune"]),
             ("tracer", ["analyze", "tui", "reports", "cli", "record", "tune"]),
             ("util", [m for m in SRC_DIRS if m not in ("util", "include")]),
             ("record", ["tui", "reports", "cli", "tune"]),
             ("analyze", ["tui", "reports", "cli", "tune"]),
             ("reports", ["tune"]), ("tui", ["tune"])]
# docs/architecture.md's layers inside runtime/: what each module may include
# (runtime/api, at the top, may include every runtime module)
RUNTIME_LAYERS = {
    "runtime/model": {"util"},
    "runtime/exec": {"runtime/model", "util"},
    "runtime/npu": {"runtime/model", "util"},
    "runtime/emu": {"runtime/model", "dump", "util"},
    "runtime/passes": {"runtime/exec", "runtime/model", "util"},
    "runtime/quant": {"runtime/passes", "runtime/exec", "runtime/model", "dump", "util"},
}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def module(path):
    parts = path.split("/")
    if parts[0] == "runtime" and len(parts) > 2:
        return "runtime/" + parts[1]
    return parts[0]


def resolve(root, src, name):
    for base in [os.path.dirname(src)] + INC_PATHS:
        cand = os.path.normpath(os.path.join(base, name))
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    return None  # generated (onnx.pb-c.h) or system


def sources(root):
    for top in SRC_DIRS:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in sorted(files):
                if f.endswith((".c", ".h")):
                    yield os.path.relpath(os.path.join(d, f), root)


def graph(root):
    edges = {}  # (from module, to module) -> [(file, included file)]
    for src in sorted(sources(root)):
        with open(os.path.join(root, src), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for name in INCLUDE_RE.findall(text):
            dst = resolve(root, src, name)
            if dst is None:
                continue
            a, b = module(src), module(dst)
            if a != b:
                edges.setdefault((a, b), []).append((src, dst))
    return edges


def sccs(nodes, succ):
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):  # recursion depth is bounded by the number of modules
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def a_cycle(comp, succ):
    """Shortest cycle through comp's first module, staying inside comp."""
    start, inside = comp[0], set(comp)
    prev, todo = {start: None}, [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(succ.get(v, ())):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] if len(path) > 1 \
                        else [start, start]
                if w in inside and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return comp


def layer_violations(edges):
    """Edges out of a runtime module to one its layer may not include."""
    return [(a, b) for (a, b) in sorted(edges)
            if a in RUNTIME_LAYERS and a != b and b not in RUNTIME_LAYERS[a]]


def self_check():
    """The check on a tree made to fail: dump/ <-> runtime/model, util -> cli,
    runtime/model -> runtime/exec."""
    import tempfile
    with tempfile.TemporaryDirectory() as t:
        files = {"dump/d.c": '#include "runtime/model/model.h"\n',
                 "dump/dump.h": "", "cli/cli.h": "",
                 "runtime/model/model.h": '#include "m.h"\n',
                 "runtime/model/m.h": '#include "dump/dump.h"\n',
                 "runtime/model/g.c": '#include "runtime/exec/exec.h"\n',
                 "runtime/exec/exec.h": "",
                 "util/u.c": '#include "cli/cli.h"\n#include <stdio.h>\n'}
        for name, text in files.items():
            os.makedirs(os.path.join(t, os.path.dirname(name)), exist_ok=True)
            with open(os.path.join(t, name), "w") as fh:
                fh.write(text)
        e = graph(t)
        succ = {}
        for a, b in e:
            succ.setdefault(a, set()).add(b)
        comps = [c for c in sccs({m for ab in e for m in ab}, succ) if len(c) > 1]
        return (comps == [["dump", "runtime/model"]] and
                e.get(("runtime/model", "dump")) == [("runtime/model/m.h", "dump/dump.h")] and
                ("util", "cli") in e and
                layer_violations(e) == [("runtime/model", "dump"),
                                        ("runtime/model", "runtime/exec")])


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else \
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    if not self_check():
        print("the check misses the cycle of its own fixture")
        print("0 passed, 1 failed")
        return 1
    edges = graph(root)
    succ, nodes = {}, set()
    for a, b in edges:
        succ.setdefault(a, set()).add(b)
        nodes |= {a, b}
    passed = failed = 0
    for comp in sccs(nodes, succ):
        if len(comp) < 2:
            continue
        failed += 1
        cyc = a_cycle(comp, succ)
        print("include cycle: " + " -> ".join(cyc) +
              ("  (modules in the same cycle: %s)" % ", ".join(comp)))
        for a, b in zip(cyc, cyc[1:]):
            print("  %s -> %s:" % (a, b))
            for src, dst in edges[(a, b)]:
                print("    %s includes %s" % (src, dst))
    if failed == 0:
        passed += 1
    passed += 1  # self_check
    for who, banned in FORBIDDEN:
        bad = [(a, b) for (a, b) in sorted(edges)
               if (a.startswith(who) if who.endswith("/") else a == who) and b in banned]
        for a, b in bad:
            failed += 1
            print("%s must not include %s:" % (a, b))
            for src, dst in edges[(a, b)]:
                print("    %s includes %s" % (src, dst))
        if not bad:
            passed += 1
    bad = layer_violations(edges)
    for a, b in bad:
        failed += 1
        print("%s must not include %s (its layer: %s):" %
              (a, b, ", ".join(sorted(RUNTIME_LAYERS[a]))))
        for src, dst in edges[(a, b)]:
            print("    %s includes %s" % (src, dst))
    if not bad:
        passed += 1
    print("%d modules, %d edges between them" % (len(nodes), len(edges)))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
