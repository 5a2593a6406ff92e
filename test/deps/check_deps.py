#!/usr/bin/env python3
"""check_deps.py SOURCE_DIR: fails when a part includes a header it must not
(docs/architecture.md, "Never"). Run by ctest (test "deps"); `--self-test` runs the checker
on small trees with and without violations.

Includes are followed transitively through include/pruner/*.h, so a model that includes a
header which includes compile.h is caught as well. The rules:
  1. models (lib/space, lib/draft, lib/verifier, and the backends' MLIR-free rules
     files) never reach pruner/compile.h or pruner/measure.h;
  2. nothing in lib/ or include/ reaches a file under passes/ or tools/;
  3. the runner (tools/pruner-run and the MLIR-free stages it is built from) never reaches
     an MLIR header or the header of a part that links MLIR;
  4. lib/tune reaches no particular backend (only pruner/backend.h), neither compile.h nor
     measure.h, and names no target kind and no backend feature macro;
  5. only lib/backend, lib/farm, lib/tune, lib/apply, the plugin (passes), tools and tests include
     backend headers, except the rules headers (host, IREE), which lib/target, lib/space and
     lib/draft use for their targets;
  6. public headers (include/) neither include nor name a library the parts use inside
     (cJSON, XGBoost, CUDA, MPI): those stay implementation details; MLIR's C API is the one
     outside API a public header may speak;
  7. a public header that declares functions wraps them in `extern "C"` for C++ callers
     (a header without it linked C++ programs against mangled names that do not exist).
"""
import os
import re
import shutil
import sys
import tempfile

INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]', re.M)

MODEL_DIRS = ("lib/space/", "lib/draft/", "lib/verifier/")
MODEL_FILES = ("lib/backend/host/target_host.c", "lib/backend/host/space_host.c",
               "lib/backend/host/draft_host.c", "include/pruner/space.h",
               "include/pruner/workload.h", "include/pruner/draft.h",
               "include/pruner/verifier.h", "include/pruner/kernel.h",
               "include/pruner/backend/host_rules.h", "lib/backend/iree/rules_iree.c",
               "include/pruner/backend/iree_rules.h")
MODEL_FORBIDDEN = ("include/pruner/compile.h", "include/pruner/measure.h")

# What the runner-only build compiles (lib/CMakeLists.txt: PRUNER_MLIR_FREE_STAGES).
RUNNER_DIRS = ("tools/pruner-run/", "lib/support/", "lib/target/", "lib/space/",
               "lib/draft/", "lib/records/", "lib/measure/")
RUNNER_FILES = ("lib/backend/host/target_host.c", "lib/backend/host/space_host.c",
                "lib/backend/host/draft_host.c", "lib/backend/iree/rules_iree.c")
# Headers of parts that link MLIR.
MLIR_PART_HEADERS = ("include/pruner/ir.h", "include/pruner/ir_context.h",
                     "include/pruner/schedule_ir.h", "include/pruner/compile.h",
                     "include/pruner/tune.h", "include/pruner/backend.h",
                     "include/pruner/backend/gpu.h", "include/pruner/backend/host.h",
                     "include/pruner/backend/iree.h", "include/pruner/apply.h")
MLIR_SYSTEM = ("mlir-c/", "mlir/", "llvm/", "llvm-c/")

TUNE_WORDS = re.compile(r"\b(PRUNER_TARGET_HOST|PRUNER_TARGET_GPU|PRUNER_TARGET_IREE_CPU|"
                        r"PRUNER_HAVE_HOST|prunerIree[A-Z]\w*|"
                        r"dlopen|prunerHost[A-Z]\w*|prunerCompile[A-Z]\w*|"
                        r"prunerBundle[A-Z]\w*)\b")

TUNE_LITERALS = re.compile(r'"(cublas|openblas|iree-default)"', re.I)

# Libraries used inside the parts that a public header must not expose.
PRIVATE_SYSTEM = ("cjson/", "cJSON.h", "xgboost/", "cuda", "cublas", "cblas", "mpi.h")
PRIVATE_WORDS = re.compile(r"\b(cJSON\w*|BoosterHandle|DMatrixHandle|CU\w+_st|cudaError_t|"
                           r"cublasHandle_t|MPI_Comm|MPI_Status|MPI_Request)\b")

RULES_HEADERS = ("include/pruner/backend/host_rules.h", "include/pruner/backend/iree_rules.h")
HOST_RULES_USERS = ("lib/target/", "lib/space/", "lib/draft/")
# lib/farm hands the backend interface's batches to other processes (pruner/farm.h).
BACKEND_USERS = ("lib/backend/", "lib/farm/", "include/pruner/farm.h", "lib/tune/", "lib/apply/",
                 "passes/", "tools/", "test/")


def sources(root):
    for top in ("include", "lib", "passes", "tools"):
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith((".c", ".h", ".cpp", ".cu")):
                    yield os.path.relpath(os.path.join(d, f), root).replace(os.sep, "/")


def strip_comments(text):
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


class Tree:
    def __init__(self, root):
        self.root = root
        self.cache = {}

    def includes(self, rel):
        """(kind, resolved-or-raw) pairs of one file's includes; kind 'file' or 'system'."""
        if rel in self.cache:
            return self.cache[rel]
        try:
            with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
                text = strip_comments(f.read())
        except OSError:
            text = ""
        out = []
        for quote, name in INCLUDE_RE.findall(text):
            resolved = None
            if quote == '"':
                for base in (os.path.dirname(rel), "include"):
                    cand = os.path.normpath(os.path.join(base, name)).replace(os.sep, "/")
                    if os.path.isfile(os.path.join(self.root, cand)):
                        resolved = cand
                        break
            elif name.startswith("pruner/"):
                cand = "include/" + name
                if os.path.isfile(os.path.join(self.root, cand)):
                    resolved = cand
            out.append(("file", resolved) if resolved else ("system", name))
        self.cache[rel] = out
        return out

    def closure(self, rel):
        """Every (file, via) reached from rel: via is the include chain."""
        seen = {}
        stack = [(rel, [rel])]
        while stack:
            cur, chain = stack.pop()
            for kind, name in self.includes(cur):
                key = (kind, name)
                if key in seen:
                    continue
                seen[key] = chain + [name]
                if kind == "file":
                    stack.append((name, chain + [name]))
        return seen


FUNCTION_DECL_RE = re.compile(r'^(?!typedef\b)[A-Za-z_][\w \t\*]*\bpruner\w+\s*\(', re.M)


def check(root):
    tree = Tree(root)
    errors = []

    def reached(rel):
        return tree.closure(rel).items()

    for rel in sources(root):
        is_model = rel.startswith(MODEL_DIRS) or rel in MODEL_FILES
        is_runner = rel.startswith(RUNNER_DIRS) or rel in RUNNER_FILES
        in_lib = rel.startswith(("lib/", "include/"))
        for (kind, name), chain in reached(rel):
            how = " -> ".join(chain)
            if is_model and kind == "file" and name in MODEL_FORBIDDEN:
                errors.append(f"{rel}: a model reaches {name} ({how})")
            if in_lib and kind == "file" and name.startswith(("passes/", "tools/")):
                errors.append(f"{rel}: a library reaches {name} ({how})")
            if is_runner and ((kind == "system" and name.startswith(MLIR_SYSTEM)) or
                              (kind == "file" and name in MLIR_PART_HEADERS)):
                errors.append(f"{rel}: the runner reaches {name}, which links MLIR ({how})")
        direct = [n for k, n in tree.includes(rel) if k == "file"]
        if rel.startswith("lib/tune/"):
            for name in direct:
                if name.startswith("include/pruner/backend/") or name in MODEL_FORBIDDEN:
                    errors.append(f"{rel}: lib/tune includes {name} (only pruner/backend.h)")
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(strip_comments(f.read()).splitlines(), 1):
                    m = TUNE_WORDS.search(line) or TUNE_LITERALS.search(line)
                    if m:
                        errors.append(f"{rel}:{n}: lib/tune names {m.group(1)}: backend "
                                      "specifics belong in lib/backend/<name>")
        if rel.startswith("include/"):
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                text = strip_comments(f.read())
            if FUNCTION_DECL_RE.search(text) and 'extern "C"' not in text:
                errors.append(f'{rel}: a public header declares functions without '
                              'extern "C" guards (C++ callers link mangled names)')
            for kind, name in tree.includes(rel):
                if kind == "system" and name.startswith(PRIVATE_SYSTEM):
                    errors.append(f"{rel}: a public header includes <{name}>, a library "
                                  "the parts use inside")
            with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
                for n, line in enumerate(strip_comments(f.read()).splitlines(), 1):
                    m = PRIVATE_WORDS.search(line)
                    if m:
                        errors.append(f"{rel}:{n}: a public header names {m.group(1)}, a type "
                                      "of a library the parts use inside")
        for name in direct:
            if not name.startswith("include/pruner/backend"):
                continue
            if name in RULES_HEADERS and rel.startswith(HOST_RULES_USERS):
                continue
            if not rel.startswith(BACKEND_USERS) and not rel.startswith("include/pruner/backend"):
                errors.append(f"{rel}: includes {name}; only lib/backend, lib/tune, lib/apply, "
                              "passes, tools and tests use backend headers")
    return errors


def self_test():
    made = []  # the trees, removed at the end, pass or fail
    try:
        self_test_in(made)
    finally:
        for d in made:
            shutil.rmtree(d, ignore_errors=True)


def self_test_in(made):
    def tree(files):
        d = tempfile.mkdtemp(prefix="pruner-deps-")
        made.append(d)
        for rel, text in files.items():
            path = os.path.join(d, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return d

    base = {
        "include/pruner/status.h": "",
        "include/pruner/kernel.h": '#include "pruner/status.h"\n',
        "include/pruner/compile.h": '#include "pruner/kernel.h"\n',
        "include/pruner/measure.h": '#include "pruner/kernel.h"\n',
        "include/pruner/draft.h": '#include "pruner/kernel.h"\n',
        "include/pruner/backend.h": '#include "pruner/draft.h"\n',
        "include/pruner/backend/host_rules.h": '#include "pruner/status.h"\n',
        "include/pruner/backend/gpu.h": '#include "pruner/backend.h"\n',
        "lib/draft/draft.c": '#include "pruner/draft.h"\n#include "pruner/backend/host_rules.h"\n',
        "lib/tune/engine.c": '#include "pruner/backend.h"\n/* PRUNER_TARGET_HOST in a comment */\n',
        "lib/measure/run.c": '#include "pruner/measure.h"\n',
        "tools/pruner-run/gpu.c": '#include "pruner/measure.h"\n#include "runner.h"\n',
        "tools/pruner-run/runner.h": "",
        "passes/passes.h": "",
    }
    clean = check(tree(base))
    assert clean == [], clean
    bad = [
        ("include/pruner/draft.h", '#include "pruner/compile.h"\n', "a model reaches"),
        ("lib/measure/run.c", '#include "../../passes/passes.h"\n', "a library reaches"),
        ("include/pruner/measure.h", "#include <mlir-c/IR.h>\n", "the runner reaches"),
        ("tools/pruner-run/gpu.c", '#include "pruner/backend.h"\n', "links MLIR"),
        ("lib/tune/engine.c", '#include "pruner/backend/gpu.h"\n', "lib/tune includes"),
        ("lib/tune/engine.c", "int host = PRUNER_TARGET_HOST;\n", "lib/tune names"),
        ("lib/tune/engine.c", 'void *h = dlopen("libcuda.so.1", 0);\n', "lib/tune names"),
        ("lib/measure/run.c", '#include "pruner/backend/host_rules.h"\n', "backend headers"),
        ("lib/tune/engine.c", 'const char *name = "cublas";\n', "lib/tune names"),
        ("include/pruner/draft.h", "#include <cjson/cJSON.h>\n", "a public header includes"),
        ("include/pruner/draft.h", "struct cJSON;\nstruct cJSON *f(void);\n",
         "a public header names"),
        ("include/pruner/draft.h", "void prunerDraftThing(int x);\n", "extern \"C\""),
    ]
    for rel, text, want in bad:
        files = dict(base)
        files[rel] = text
        errors = check(tree(files))
        assert any(want in e for e in errors), (rel, text, want, errors)
    print(f"check_deps self-test: clean tree passes, {len(bad)} violations caught")


def main():
    if len(sys.argv) == 2 and sys.argv[1] == "--self-test":
        self_test()
        return 0
    if len(sys.argv) != 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    errors = check(sys.argv[1])
    for e in errors:
        print("error: " + e)
    if errors:
        print(f"check_deps: {len(errors)} forbidden include(s); see docs/architecture.md")
        return 1
    print("check_deps: every part includes only what it may (docs/architecture.md)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
