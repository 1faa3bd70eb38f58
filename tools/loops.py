#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""loops.py - does user/ have an include loop or a call loop?

    tools/loops.py [--build DIR] [FOLDER...]

Two graphs, each checked for cycles (docs/design.md section 7, "No include
cycles", "Data flows one way"):

  includes  unit -> unit, from the `#include "..."` lines of user/**/*.[ch],
            where a unit is a header and the .c file of the same name
            (verdict/verdict.h + verdict/verdict.c): verdict.h including
            explain.h while explain.c includes verdict.h is a loop, although
            no header includes itself;
  calls     object -> object, from `nm` of DIR/user/**/*.o (default build/):
            A -> B when A uses a function or object B defines.  A cycle means
            two files call into each other, directly or around a ring.

Both graphs span the whole of user/; FOLDER (e.g. explain check nccl)
limits the report to the loops that pass through user/FOLDER.  Prints every
loop found (one strongly connected component per line) and exits 1 when
there is one, 0 otherwise.  Build first (`make`).
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def sccs(graph):
    """Tarjan's strongly connected components with more than one node (or a
    self-loop)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
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
            if len(comp) > 1 or v in graph.get(v, ()):
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def include_graph(root):
    """unit ("verdict/verdict") -> the units whose headers it includes"""
    graph = {}
    for d, _, files in os.walk(os.path.join(root, "user")):
        for f in files:
            if not f.endswith((".h", ".c")):
                continue
            path = os.path.join(d, f)
            unit = os.path.relpath(path, os.path.join(root, "user"))[:-2]
            edges = graph.setdefault(unit, set())
            with open(path, encoding="utf-8", errors="replace") as fh:
                for line in fh:
                    m = INCLUDE.match(line)
                    if m and os.path.exists(os.path.join(root, "user", m.group(1))):
                        if m.group(1)[:-2] != unit:
                            edges.add(m.group(1)[:-2])
    return graph


def call_graph(build):
    objs = []
    base = os.path.join(build, "user")
    for d, _, files in os.walk(base):
        for f in files:
            if f.endswith(".o"):
                objs.append(os.path.relpath(os.path.join(d, f), base))
    defined, used = {}, {}
    for rel in objs:
        out = subprocess.run(["nm", "--defined-only", "-g", os.path.join(base, rel)],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 3:
                defined[parts[2]] = rel
        out = subprocess.run(["nm", "-u", os.path.join(base, rel)],
                             capture_output=True, text=True, check=True).stdout
        used[rel] = {l.split()[-1] for l in out.splitlines() if l.strip()}
    graph = {}
    for rel in objs:
        graph[rel] = {defined[s] for s in used[rel] if s in defined and defined[s] != rel}
    return graph


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = os.path.join(root, "build")
    folders = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--build" and args:
            build = os.path.abspath(args.pop(0))
        elif a in ("-h", "--help"):
            print(__doc__.strip())
            return 0
        else:
            folders.append(a.strip("/").removeprefix("user/"))
    bad = 0
    for kind, graph in (("include", include_graph(root)), ("call", call_graph(build))):
        loops = [c for c in sccs(graph)
                 if not folders or any(n.split(os.sep)[0] in folders for n in c)]
        for comp in loops:
            print(f"{kind} loop: {' <-> '.join(comp)}")
        print(f"{kind}s: {len(graph)} units, {sum(len(e) for e in graph.values())} edges, "
              f"{len(loops)} loops{' through ' + ' '.join(folders) if folders else ''}")
        bad += len(loops)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
