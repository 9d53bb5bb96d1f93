#!/usr/bin/env python3
"""The dependencies between the units of ui/ (issue 47), beside tests/layering.cmake.

A unit is a header and its .cpp (ui/views/mainwindow.h and .cpp). The check reads every file of
ui/ and fails, naming the files and lines, when
  1. the units depend on each other in a cycle: A includes B's header and B (its header or its
     .cpp) includes A's, directly or through other units (A -> B -> C -> A). An include and a
     forward declaration of a class another unit defines (`class MainWindow;`) both count as a
     dependency, so "declare the class, include its header somewhere else" still closes the
     cycle;
  2. a folder depends on a folder above it: the folders of ui/ are layers, each using only its
     own and those below it (LAYERS); a folder in no layer is refused too;
  3. a .cpp declares, outside an anonymous namespace, a function it does not define (a local
     re-declaration of another unit's function instead of including its header), or anything
     `extern`, or forward-declares a class another unit defines;
  4. a .cpp defines a member function of a class another unit's header defines;
  5. two units' headers declare the same free function.
What it cannot see: a dependency passed in at run time (a std::function, a callback, an
interface a unit implements), a free function declared in one unit's header and defined in
another's .cpp (only members are matched to their class), and code that clang-format did not lay
out (a namespace-scope declaration indented, a macro that opens a scope). It reads text, not the
preprocessor's output: a line inside `#if 0` counts. docs/engineering.md ("What the layering
checks refuse") says the same.

Run: python3 layering.py <ui folder>, or python3 layering.py --self-test [<ui folder>] (planted
violations on fixture trees and on a copy of ui/, each of which must fail naming its files).
Only the standard library.
"""

import os
import re
import shutil
import sys
import tempfile
import textwrap

# The folders of ui/ from the bottom: a folder may use its own layer and those below it. state and
# compute are one library (pe_model) and one layer: the view list (state) names the compute
# results its views draw, the scheduler (compute) the state it runs from.
LAYERS = [("state", "compute"), ("figures",), ("widgets",), ("dialogs",), ("views",)]
LAYER_OF = {folder: level for level, folders in enumerate(LAYERS) for folder in folders}

INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([A-Za-z0-9_/]+)\.h"', re.M)
# A class defined at namespace scope (clang-format leaves those unindented).
CLASS_DEFINED = re.compile(
    r"^(?:class|struct)\s+(?:\[\[\w+\]\]\s+)?(\w+)(?:\s+final)?\s*(?::[^;{]*)?\{?\s*$", re.M)
MEMBER_DEFINED = re.compile(r"^[A-Za-z_][^;{}()]*?\b(\w+)::~?\w+\s*\(", re.M)
FORWARD = re.compile(r"^(?:class|struct)\s+(\w+)\s*;", re.M)
# A function declaration: a return type and a (qualified) name before its parameter list, and
# after the list nothing but const, noexcept or a trailing return type.
FUNCTION_HEAD = re.compile(r"^(?:\[\[\w+\]\]\s*)?(?P<type>[A-Za-z_][\w:<>,\s\*&]*?[\s\*&])"
                           r"(?P<name>~?[A-Za-z_][\w:]*)\s*$")
FUNCTION_TAIL = re.compile(r"^\s*(?:const\s*)?(?:noexcept\s*)?(?:->\s*[\w:<>\s\*&]+)?$")
NOT_FUNCTIONS = ("using", "typedef", "template", "friend", "return", "namespace", "enum",
                 "class", "struct", "static_assert", "operator")


def strip(text):
    """Comments, string and character literals and preprocessor lines blanked, lines kept."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c in " \t":
            out.append(c)
            i += 1
            continue
        if at_line_start and c == "#":  # a directive, with its continuation lines
            while i < n and not (text[i] == "\n" and text[i - 1] != "\\"):
                out.append("\n" if text[i] == "\n" else " ")
                i += 1
            continue
        at_line_start = c == "\n"
        if text.startswith("//", i):
            while i < n and text[i] != "\n":
                out.append(" ")
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == "R" and text.startswith('"', i + 1) and not (i and re.match(r"\w", text[i - 1])):
            delimiter = text[i + 2:text.find("(", i + 2)]
            end = text.find(")" + delimiter + '"', i)
            end = n if end < 0 else end + len(delimiter) + 2
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:end]))
            i = end
        elif c == '"' or (c == "'" and not (i and text[i - 1].isalnum())):
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + c + re.sub(r"[^\n]", " ", text[i + 2:j + 1]))
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def scopes(code):
    """(statement, its line, scope) for each `;`- or `{`-ended statement: scope is 'namespace'
    (namespace scope outside any anonymous namespace), 'anonymous' or 'inner'; a `{` statement
    ends with '{'."""
    stack = []
    start = 0
    parens = 0  # braces and semicolons within parentheses (`= {}`, a lambda argument) end nothing
    for i, c in enumerate(code):
        if c in "()":
            parens = max(0, parens + (1 if c == "(" else -1))
        if c not in ";{}" or parens:
            continue
        head = code[start:i]
        line = code.count("\n", 0, start + len(head) - len(head.lstrip())) + 1
        where = ("inner" if any(s == "inner" for s in stack) else
                 "anonymous" if "anonymous" in stack else "namespace")
        if c == "{":
            words = head.split()
            if words[:1] == ["namespace"] and len(words) == 1:
                stack.append("anonymous")
            elif words[:1] in (["namespace"], ["extern"]) and len(words) <= 2:
                stack.append("namespace")
            else:
                stack.append("inner")
            yield " ".join(words) + " {", line, where
        elif c == "}":
            if stack:
                stack.pop()
        else:
            yield " ".join(head.split()), line, where
        start = i + 1


def split_top(text, separator):
    """`text` split at `separator` outside brackets."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        depth += c in "(<[{"
        depth -= c in ")>]}"
        if c == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    return parts + [text[start:]]


def function_declared(statement):
    """(name, parameter types) when the statement declares a function, else None."""
    if not statement or statement.split()[0] in NOT_FUNCTIONS or "(" not in statement:
        return None
    open_at = statement.index("(")
    head = FUNCTION_HEAD.match(statement[:open_at])
    depth, close_at = 0, -1
    for i in range(open_at, len(statement)):
        depth += statement[i] == "("
        depth -= statement[i] == ")"
        if depth == 0:
            close_at = i
            break
    if not head or close_at < 0 or not FUNCTION_TAIL.match(statement[close_at + 1:]):
        return None
    name = head.group("name")
    if head.group("type").split()[0] in NOT_FUNCTIONS or name.split("::")[-1].isupper():
        return None  # a macro
    types = []
    for param in filter(None, (p.strip() for p in split_top(statement[open_at + 1:close_at], ","))):
        param = split_top(param, "=")[0].strip()  # a default value is no part of the type
        if "(" in param or '""' in param or re.match(r"[-\d.]", param):
            return None  # a variable constructed from values
        words = re.findall(r"[\w:<>]+|[\*&]", param)
        types.append(" ".join(words[:-1] if len(words) > 1 and words[-1][0].isalpha() else words))
    return name, tuple(types)


class Tree:
    def __init__(self, ui):
        self.ui = ui
        self.files = {}  # path under ui/ -> its text
        for folder, _, names in os.walk(ui):
            for name in names:
                if name.endswith((".h", ".cpp")):
                    path = os.path.relpath(os.path.join(folder, name), ui).replace(os.sep, "/")
                    with open(os.path.join(folder, name), encoding="utf-8") as f:
                        self.files[path] = f.read()
        self.code = {path: strip(text) for path, text in self.files.items()}
        self.owner = {}  # class name -> the unit whose header defines it (None: several)
        for path, code in self.code.items():
            if path.endswith(".h"):
                for name in CLASS_DEFINED.findall(code):
                    unit = unit_of(path)
                    self.owner[name] = unit if self.owner.get(name, unit) == unit else None
        # A .cpp without a header of its own is a part of the unit whose class it defines
        # (figures/wavesfigure.cpp: FigureBuilder's waves), one with one or none of its own.
        self.unit = {path: unit_of(path) for path in self.files}
        for path, code in self.code.items():
            if path.endswith(".cpp") and unit_of(path) + ".h" not in self.files:
                classes = {self.owner.get(m) for m in MEMBER_DEFINED.findall(code)} - {None}
                if len(classes) == 1:
                    self.unit[path] = classes.pop()
        self.problems = []

    def problem(self, text):
        self.problems.append(text)

    def edges(self):
        """unit -> {unit it uses: (file, line, what)}, from includes and forward declarations."""
        graph = {unit: {} for unit in self.unit.values()}
        for path, text in self.files.items():
            unit = self.unit[path]
            for m in INCLUDE.finditer(text):
                used = m.group(1)
                if used != unit and used + ".h" in self.files:
                    line = text.count("\n", 0, m.start()) + 1
                    graph[unit].setdefault(used, (path, line, f'#include "{used}.h"'))
            for m in FORWARD.finditer(self.code[path]):
                used = self.owner.get(m.group(1))
                if used and used != unit:
                    line = text.count("\n", 0, m.start()) + 1
                    graph[unit].setdefault(used, (path, line, m.group(0)))
        return graph

    def check_cycles(self, graph):
        # The shortest cycles first (two units including each other), until each unit of a
        # cycle is named in one; each step with its file and line.
        for component in strongly_connected(graph):
            covered = set()
            cycles = sorted((shortest_cycle(graph, component, unit) for unit in component),
                            key=lambda c: (len(c), c))
            for cycle in cycles:
                if covered.issuperset(cycle):
                    continue
                covered.update(cycle)
                steps = ", ".join(f"ui/{graph[a][b][0]}:{graph[a][b][1]} {graph[a][b][2]}"
                                  for a, b in zip(cycle, cycle[1:]))
                self.problem(f"ui/ units depend on each other in a cycle: "
                             f"{' -> '.join('ui/' + u for u in cycle)} ({steps})")

    def check_layers(self, graph):
        for unit in sorted(graph):
            folder = unit.split("/")[0]
            if folder not in LAYER_OF:
                self.problem(f"ui/{unit}: ui/{folder} is in no layer of tests/layering.py")
                continue
            for used, (path, line, what) in sorted(graph[unit].items()):
                other = used.split("/")[0]
                if LAYER_OF.get(other, -1) > LAYER_OF[folder]:
                    self.problem(f"ui/{path}:{line}: ui/{folder} may not use ui/{other}, a layer "
                                 f"above it: {what}")

    def check_declarations(self):
        # (name, parameter types) -> the unit and line of a header's declaration; namespaces are
        # not told apart (none of ui/ declares one function name in two).
        declared = {}
        for path, code in sorted(self.code.items()):
            unit = self.unit[path]
            for statement, line, where in scopes(code):
                if where != "namespace":
                    continue
                where_at = f"ui/{path}:{line}"
                if statement.endswith("{") or re.search(r"=\s*default$", statement):
                    self.check_definition(path, unit, statement, where_at)
                    continue
                if path.endswith(".cpp"):
                    self.check_cpp_statement(unit, statement, where_at)
                    continue
                function = function_declared(statement)
                if function:
                    seen = declared.setdefault(function, (unit, where_at))
                    if seen[0] != unit:
                        self.problem(f"{where_at}: {function[0]} is declared in ui/{seen[0]}.h "
                                     f"too ({seen[1]}): one unit declares it, the others "
                                     f"include it")

    def check_cpp_statement(self, unit, statement, where_at):
        words = statement.split()
        if not words:
            return
        if words[0] == "extern":
            self.problem(f"{where_at}: a .cpp declares `{statement};`: include the header of the "
                         f"unit that defines it")
        elif words[0] in ("class", "struct") and len(words) == 2:
            used = self.owner.get(words[1])
            if used and used != unit:
                self.problem(f"{where_at}: a .cpp declares {words[1]} of ui/{used}.h: include it")
        elif words[0] not in ("static", "inline", "constexpr") and function_declared(statement):
            self.problem(f"{where_at}: a .cpp declares `{statement};` without defining it: a "
                         f"function of another unit comes from its header, one of this file's "
                         f"own goes in its anonymous namespace")

    def check_definition(self, path, unit, statement, where_at):
        head = statement.split("(")[0] if "(" in statement else ""
        m = re.search(r"(\w+)::~?\w+\s*$", head)
        if path.endswith(".cpp") and m:
            used = self.owner.get(m.group(1))
            if used and used != unit:
                self.problem(f"{where_at}: defines a member of {m.group(1)}, which ui/{used}.h "
                             f"defines: its definitions belong in ui/{used}.cpp")

    def check(self):
        graph = self.edges()
        self.check_cycles(graph)
        self.check_layers(graph)
        self.check_declarations()
        return graph


def unit_of(path):
    return path.rsplit(".", 1)[0]


def strongly_connected(graph):
    """Tarjan's components of more than one unit, iteratively (no recursion limit)."""
    index, low, on, stack, found = {}, {}, set(), [], []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    unit = stack.pop()
                    on.discard(unit)
                    component.append(unit)
                    if unit == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def shortest_cycle(graph, component, start):
    """The shortest cycle through `start` within its component, `start` at both ends."""
    previous = {start: None}
    queue = [start]
    for unit in queue:
        for used in sorted(graph[unit]):
            if used == start:
                path = [unit]
                while previous[path[-1]] is not None:
                    path.append(previous[path[-1]])
                return list(reversed(path)) + [start]
            if used in component and used not in previous:
                previous[used] = unit
                queue.append(used)
    return [start, start]  # not reached: every unit of a component lies on a cycle


def run(ui):
    tree = Tree(ui)
    if len(tree.files) < 100:
        tree.problem(f"only {len(tree.files)} files under {ui}")
    graph = tree.check()
    return tree, sum(len(v) for v in graph.values())


# The self-test: fixture trees, one clean and one per planted violation, each of which must fail
# with a message naming the given files and lines.
def source(text):
    return textwrap.dedent(text).lstrip("\n")


CLEAN = {
    "state/values.h": source("""
        #pragma once
        namespace pe {
        struct Values
        {
            int a = 0;
        };
        int count(const Values &values);
        }
        """),
    # What is no re-declaration: helpers in the anonymous namespace or static, variables, macros.
    "state/values.cpp": source("""
        #include "state/values.h"
        namespace pe {
        namespace {
        int twice(int);
        int twice(int a) { return 2 * a; }
        }
        static int thrice(int a);
        static int thrice(int a) { return 3 * a; }
        const int limit(10);
        const Values origin(makeValues(0));
        static_assert(sizeof(int) == 4);
        Q_DECLARE_METATYPE(Values)
        int count(const Values &values) { return twice(values.a) + thrice(1); }
        }
        """),
    "compute/job.h": source("""
        #pragma once
        #include "state/values.h"
        namespace pe {
        class Job
        {
        public:
            void run(const Values &values);
            struct Step;
        };
        }
        """),
    "compute/job.cpp": source("""
        #include "compute/job.h"
        // void run(int); a comment
        namespace pe {
        void Job::run(const Values &values)
        {
            void (*f)(int) = nullptr;
            const char *text = "int count(int);";
            (void)f, (void)text, (void)values;
        }
        }
        """),
    "figures/plot.h": source("""
        #pragma once
        namespace pe {
        class Job;
        class Plot
        {
        public:
            explicit Plot(Job *job) : m_job(job) {}
            Job *m_job;
        };
        }
        """),
    "views/window.h": source("""
        #pragma once
        #include "figures/plot.h"
        namespace pe {
        class Window
        {
        public:
            void show();
            void hide();
        };
        }
        """),
    "views/window.cpp": source("""
        #include "views/window.h"
        #include "views/panel.h"
        namespace pe {
        void Window::show() { Panel(nullptr).raise(); }
        }
        """),
    # A part of the window's unit without a header of its own.
    "views/windowmenus.cpp": source("""
        #include "views/window.h"
        namespace pe {
        void Window::hide() {}
        }
        """),
    "views/panel.h": source("""
        #pragma once
        namespace pe {
        class Plot;
        class Panel
        {
        public:
            explicit Panel(Plot *p) : m_p(p) {}
            void raise() {}
            Plot *m_p;
        };
        }
        """),
}


def planted(path, after, line):
    """CLEAN's `path` with `line` added after its line `after` (0: first)."""
    lines = CLEAN[path].splitlines(keepends=True) if path in CLEAN else []
    return {path: "".join(lines[:after] + [line + "\n"] + lines[after:])}


PLANTED = [
    ("a mutual include",
     planted("views/panel.h", 1, '#include "views/window.h"'),
     ["ui/views/panel -> ui/views/window -> ui/views/panel", "ui/views/panel.h:2",
      "ui/views/window.cpp:2"]),
    ("a cycle through three units",
     {**planted("views/window.h", 1, '#include "views/menu.h"'),
      "views/menu.h": '#pragma once\n#include "views/bar.h"\n',
      "views/bar.h": "#pragma once\n",
      "views/bar.cpp": '#include "views/bar.h"\n#include "views/window.h"\n'},
     ["ui/views/bar -> ui/views/window -> ui/views/menu -> ui/views/bar", "ui/views/bar.cpp:2",
      "ui/views/menu.h:2", "ui/views/window.h:2"]),
    ("a part that knows the window that installs it",
     planted("views/panel.h", 2, "class Window;"),
     ["ui/views/panel -> ui/views/window -> ui/views/panel", "ui/views/panel.h:3 class Window;",
      "ui/views/window.cpp:2"]),
    ("a cycle through a part of a unit",
     {**planted("views/windowmenus.cpp", 1, '#include "views/status.h"'),
      "views/status.h": "#pragma once\n",
      "views/status.cpp": '#include "views/status.h"\n#include "views/window.h"\n'},
     ["ui/views/status -> ui/views/window -> ui/views/status", "ui/views/status.cpp:2",
      "ui/views/windowmenus.cpp:2"]),
    ("a cycle within one layer",
     planted("state/values.cpp", 1, '#include "compute/job.h"'),
     ["ui/compute/job -> ui/state/values -> ui/compute/job", "ui/compute/job.h:2",
      "ui/state/values.cpp:2"]),
    ("an include from a folder below",
     planted("state/values.cpp", 1, '#include "figures/plot.h"'),
     ["ui/state/values.cpp:2: ui/state may not use ui/figures, a layer above it"]),
    ("a forward declaration from a folder below",
     planted("compute/job.h", 3, "class Window;"),
     ["ui/compute/job.h:4: ui/compute may not use ui/views, a layer above it: class Window;"]),
    ("a folder in no layer",
     {"extras/tool.h": "#pragma once\n"},
     ["ui/extras/tool: ui/extras is in no layer"]),
    ("a local re-declaration of another unit's function",
     planted("views/window.cpp", 3, "int count(const Values &values);"),
     ["ui/views/window.cpp:4: a .cpp declares `int count(const Values &values);`"]),
    ("a re-declaration over two lines, with default values",
     planted("views/window.cpp", 3,
             "bool save(const Values &values,\n"
             "          const QString &path = QString(), Values start = {});"),
     ["ui/views/window.cpp:4: a .cpp declares `bool save(const Values &values, const QString "
      "&path = QString(), Values start = {});`"]),
    ("an extern declaration",
     planted("views/window.cpp", 3, "extern int windowCount;"),
     ["ui/views/window.cpp:4: a .cpp declares `extern int windowCount;`"]),
    ("a forward declaration in a .cpp",
     planted("views/window.cpp", 3, "class Values;"),
     ["ui/views/window.cpp:4: a .cpp declares Values of ui/state/values.h"]),
    ("a member defined in another unit",
     planted("views/window.cpp", 3, "void Plot::redraw() {}"),
     ["ui/views/window.cpp:4: defines a member of Plot, which ui/figures/plot.h defines"]),
    ("a destructor defaulted in another unit",
     planted("views/window.cpp", 3, "Panel::~Panel() = default;"),
     ["ui/views/window.cpp:4: defines a member of Panel, which ui/views/panel.h defines"]),
    ("a function declared in two headers",
     {"compute/count.h": source("""
          #pragma once
          #include "state/values.h"
          namespace pe {
          int count(const Values &other);
          }
          """)},
     ["ui/state/values.h:7: count is declared in ui/compute/count.h too (ui/compute/count.h:4)"]),
]


def check_fixture(files):
    with tempfile.TemporaryDirectory(prefix="pe-layering-") as root:
        for path, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w", encoding="utf-8") as f:
                f.write(text)
        tree = Tree(root)
        tree.check()
        return tree.problems


def planted_in_copy(ui):
    """The real tree with one of the mutual includes issue 47 removed put back: must fail."""
    with tempfile.TemporaryDirectory(prefix="pe-layering-") as root:
        copy = os.path.join(root, "ui")
        shutil.copytree(ui, copy)
        with open(os.path.join(copy, "figures", "schemefigures.cpp"), "a", encoding="utf-8") as f:
            f.write('#include "figures/viewfigures.h"\n')
        tree = Tree(copy)
        tree.check()
        return tree.problems


def self_test(ui=None):
    failures = []
    problems = check_fixture(CLEAN)
    if problems:
        failures.append("the clean fixture fails:\n  " + "\n  ".join(problems))
    if ui:
        problems = planted_in_copy(ui)
        expected = "ui/figures/schemefigures -> ui/figures/viewfigures -> ui/figures/schemefigures"
        if not any(expected in p and "ui/figures/schemefigures.cpp:" in p for p in problems):
            failures.append(f"a copy of {ui} with schemefigures.cpp including viewfigures.h: "
                            f"expected {expected}, got:\n  " + ("\n  ".join(problems) or "none"))
        else:
            print("layering.py self-test: a copy of ui/ with a mutual include put back refused:\n  "
                  + "\n  ".join(problems))
    for name, changes, expected in PLANTED:
        problems = check_fixture({**CLEAN, **changes})
        text = "\n".join(problems)
        missing = [e for e in expected if e not in text]
        if not problems or missing:
            failures.append(f"{name}: expected a problem naming {missing or expected}, got:\n  "
                            + ("\n  ".join(problems) or "none"))
        else:
            print(f"layering.py self-test: {name} refused:\n  " + "\n  ".join(problems))
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    print(f"layering.py self-test: the clean tree passes, {len(PLANTED) - len(failures)} of "
          f"{len(PLANTED)} planted violations refused")
    return 1 if failures else 0


def main(argv):
    if argv[1:2] == ["--self-test"] and len(argv) <= 3:
        return self_test(argv[2] if len(argv) == 3 else None)
    if len(argv) != 2:
        print("usage: layering.py <ui folder> | --self-test [<ui folder>]", file=sys.stderr)
        return 2
    tree, count = run(argv[1])
    for p in tree.problems:
        print(p, file=sys.stderr)
    if tree.problems:
        print(f"layering.py: {len(tree.problems)} problem(s) in the dependencies of ui/'s units",
              file=sys.stderr)
        return 1
    print(f"layering.py: {len(tree.files)} files of ui/, {count} dependencies between its units: "
          f"no cycle, each folder over its own layer and those below, no re-declaration")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
