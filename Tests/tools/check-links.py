#!/usr/bin/env python3
"""No dangling reference: every link and path the project's text names must exist.

    python3 Tests/tools/check-links.py [--root DIR]

Checked, against `git ls-files` (what a clone has, nothing generated):
- every relative link and image of every committed Markdown file (`[text](path#anchor)`,
  `[ref]: path`), outside fenced code; an anchor must be the GitHub slug of a heading of the
  file it points into (the file itself for `#anchor`);
- every `Documentation=` of the systemd units (and of the scripts that rewrite it):
  `file:///usr/local/share/doc/cairn/NAME` must be a file deploy/install.sh installs into its
  doc directory, `file:///usr/share/doc/cairn/NAME` one deploy/debian/build-deb.sh puts in the
  package, `man:cairn(1)` the manual's source (deploy/man/cairn.1.in);
- every repository path (starting with Sources/, Tests/, Hardware/, deploy/ or .ci/) named in
  Markdown (code included), in the comments of shell and Python scripts (and Python docstrings),
  units and timers, and in Swift comments: a tracked file, or a folder holding one (a glob must
  match one);
- every bare Markdown name in capitals (`LOG_FORMAT.md`) in the same places: some tracked file
  must have that name;
- every `--filter Target.Class` in Markdown: the test target's folder and the class in it.

Prints each broken reference as FILE:LINE: what is broken, then one line
"check-links: N links, M files, K broken"; exits 1 when K > 0. Python 3 standard library only.
"""

import argparse
import fnmatch
import os
import posixpath
import re
import subprocess
import sys
from urllib.parse import unquote

# Paths a build or a run makes, never committed, that the text may name or link to.
GENERATED = (".build/",)

PREFIXES = ("Sources/", "Tests/", "Hardware/", "deploy/", ".ci/")
PATH_RE = re.compile(r"(?<![\w./$~-])((?:\.ci|Sources|Tests|Hardware|deploy)/[\w.+*/-]*)")
BARE_MD_RE = re.compile(r"(?<![\w./$-])([A-Z][A-Z0-9_-]*\.md)\b")
LINK_RE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+[\"'][^\"']*[\"'])?\s*\)")
REF_RE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s+<?(\S+?)>?(?:\s+[\"'(].*)?$")
HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE_RE = re.compile(r"^\s{0,3}(```+|~~~+)")
FILTER_RE = re.compile(r"--filter\s+([A-Za-z]\w*)(?:\.([A-Za-z]\w*))?")
DOC_RE = re.compile(r"(?:^|#)Documentation=([^\n'\"]*)")  # a unit's line, or a sed's new value
SCRIPT_EXT = (".sh", ".py", ".service", ".timer")


def git_files(root):
    out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True, capture_output=True).stdout
    return [p for p in out.decode("utf-8", "surrogateescape").split("\0") if p]


def slug(text):
    """GitHub's anchor for a heading: the rendered text, lower-cased, punctuation dropped."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = git_files(root)
        self.fileset = set(self.files)
        self.dirs = set()
        for f in self.files:
            parts = f.split("/")
            for i in range(1, len(parts)):
                self.dirs.add("/".join(parts[:i]))
        self.basenames = {posixpath.basename(f) for f in self.files}
        self.texts = {}
        self.anchors_cache = {}
        self.broken = []
        self.links = 0
        self.scanned = set()

    def text(self, path):
        if path not in self.texts:
            try:
                with open(os.path.join(self.root, path), encoding="utf-8", errors="replace") as f:
                    self.texts[path] = f.read()
            except OSError:
                self.texts[path] = None
        return self.texts[path]

    def bad(self, path, line, what):
        self.broken.append(f"{path}:{line}: {what}")

    # ---------------------------------------------------------------- what exists

    def exists(self, path):
        path = path.rstrip("/") if path not in ("", "/") else path
        if path in self.fileset or path in self.dirs or path == "":
            return True
        if any(path.startswith(g) or path == g.rstrip("/") for g in GENERATED):
            return True
        if any(c in path for c in "*?["):
            return any(fnmatch.fnmatchcase(f, path) or fnmatch.fnmatchcase(f, path + "/*") for f in self.files)
        return False

    def anchors(self, path):
        if path not in self.anchors_cache:
            seen = {}
            found = set()
            fence = None
            for line in (self.text(path) or "").splitlines():
                m = FENCE_RE.match(line)
                if m:
                    mark = m.group(1)[0] * 3
                    if fence is None:
                        fence = mark
                    elif mark == fence:
                        fence = None
                    continue
                if fence:
                    continue
                h = HEADING_RE.match(line)
                if not h:
                    continue
                s = slug(h.group(2))
                n = seen.get(s, 0)
                seen[s] = n + 1
                found.add(s if n == 0 else f"{s}-{n}")
            self.anchors_cache[path] = found
        return self.anchors_cache[path]

    # ---------------------------------------------------------------- the checks

    def check_link(self, src, lineno, target):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("//"):
            return  # http:, https:, mailto:, file: ...: outside the repository
        self.links += 1
        path, _, anchor = target.partition("#")
        path = path.split("?", 1)[0]
        if path:
            resolved = posixpath.normpath(posixpath.join(posixpath.dirname(src), unquote(path)))
            if resolved.startswith("../"):
                self.bad(src, lineno, f"link '{target}' leaves the repository")
                return
            if resolved == ".":
                resolved = ""
            if not self.exists(resolved):
                self.bad(src, lineno, f"link '{target}': no {resolved} in git ls-files")
                return
        else:
            resolved = src
        if anchor:
            if not resolved.endswith(".md"):
                return  # a line anchor into code (#L12) or a non-Markdown file: not checked
            if anchor.lower() not in self.anchors(resolved):
                self.bad(src, lineno, f"link '{target}': no heading '#{anchor}' in {resolved}")

    def check_path(self, src, lineno, raw):
        path = raw.rstrip(".,:;)'\"`")
        while path.endswith("."):
            path = path[:-1]
        if path in ("", *PREFIXES) or not path.startswith(PREFIXES):
            return
        self.links += 1
        if not self.exists(path):
            self.bad(src, lineno, f"path '{path}' is not in git ls-files")

    def check_bare_md(self, src, lineno, name):
        self.links += 1
        if name not in self.basenames:
            self.bad(src, lineno, f"'{name}': no file of that name in git ls-files")

    def check_filter(self, src, lineno, first, second):
        """`--filter Target.Class`, `--filter Class.method` or `--filter Name` (a target or a class)."""
        self.links += 1

        def declares(folder, name, kind=r"(?:class|struct)"):
            decl = re.compile(r"\b" + kind + r"\s+" + re.escape(name) + r"\b")
            return any(
                f.startswith(folder + "/") and f.endswith(".swift") and decl.search(self.text(f) or "") for f in self.files
            )

        folder = f"Tests/{first}"
        if folder in self.dirs:
            if second and not declares(folder, second):
                self.bad(src, lineno, f"--filter {first}.{second}: no class {second} in {folder}")
            return
        if not declares("Tests", first):
            self.bad(src, lineno, f"--filter {first}: no test target or class of that name under Tests/")
        elif second and not declares("Tests", second, r"func"):
            self.bad(src, lineno, f"--filter {first}.{second}: no test {second} under Tests/")

    def scan_words(self, src, lineno, text):
        for m in PATH_RE.finditer(text):
            self.check_path(src, lineno, m.group(1))
        for m in BARE_MD_RE.finditer(text):
            self.check_bare_md(src, lineno, m.group(1))

    # ---------------------------------------------------------------- per kind of file

    def markdown(self, path):
        fence = None
        for n, line in enumerate((self.text(path) or "").splitlines(), 1):
            # A link's target is checked as a link (below), not again as a path in the text.
            self.scan_words(path, n, line if fence else re.sub(r"\]\([^)\s]*", "](", line))
            for m in FILTER_RE.finditer(line):
                self.check_filter(path, n, m.group(1), m.group(2))
            m = FENCE_RE.match(line)
            if m:
                mark = m.group(1)[0] * 3
                if fence is None:
                    fence = mark
                elif mark == fence:
                    fence = None
                continue
            if fence:
                continue
            plain = re.sub(r"(`+)(.+?)\1", "", line)  # code spans hold no links
            for m in LINK_RE.finditer(plain):
                self.check_link(path, n, m.group(1))
            m = REF_RE.match(plain)
            if m:
                self.check_link(path, n, m.group(1))

    def script(self, path):
        """The comments of a shell or Python script, unit or timer (and Python's docstrings)."""
        python = path.endswith(".py")
        in_doc = None
        for n, line in enumerate((self.text(path) or "").splitlines(), 1):
            if python:
                if in_doc:
                    self.scan_words(path, n, line)
                    if in_doc in line:
                        in_doc = None
                    continue
                stripped = line.strip()
                for q in ('"""', "'''"):
                    if stripped.startswith(q) or stripped.startswith("r" + q):
                        self.scan_words(path, n, line)
                        if stripped.count(q) == 1:
                            in_doc = q
                        break
                if in_doc:
                    continue
            m = re.search(r"(?:^|\s)#(.*)$", line)
            if m and not line.lstrip().startswith("#!"):
                self.scan_words(path, n, m.group(1))
            if not python:
                for d in DOC_RE.finditer(line):
                    self.documentation(path, n, d.group(1))

    def swift(self, path):
        for n, line in enumerate((self.text(path) or "").splitlines(), 1):
            m = re.search(r"//(.*)$", line)
            if m and not re.search(r"\"[^\"]*//", line[: m.start() + 2]):
                self.scan_words(path, n, m.group(1))

    def installed_docs(self, script, dest_re, vars):
        """NAME -> repository file, from `install ... "SRC" "DEST/NAME"` lines of a script."""
        docs = {}
        for line in (self.text(script) or "").splitlines():
            m = re.search(r"\binstall\b[^\n]*?\"([^\"]+)\"\s+\"" + dest_re + r"/([^\"/]+)\"", line)
            if m:
                src = m.group(1)
                for var, value in vars.items():
                    src = src.replace(var, value)
                docs[m.group(2)] = posixpath.normpath(src)
        return docs

    def documentation(self, path, lineno, value):
        value = value.rsplit("Documentation=", 1)[-1]  # a sed that rewrites it: the new value
        for url in value.split():
            url = url.split("#", 1)[0] if url.startswith("file:") else url
            self.links += 1
            m = re.match(r"^file://(/usr/local/share/doc/cairn|/usr/share/doc/cairn)/(.+)$", url)
            if m:
                if m.group(1).startswith("/usr/local"):
                    docs = self.installed_docs("deploy/install.sh", r"\$doc_dir", {"$here": "deploy"})
                    by = "deploy/install.sh"
                else:
                    docs = self.installed_docs(
                        "deploy/debian/build-deb.sh",
                        r"\$stage/usr/share/doc/cairn",
                        {"$repo/": "", "$here": "deploy/debian"},
                    )
                    by = "deploy/debian/build-deb.sh"
                src = docs.get(m.group(2))
                if src is None:
                    self.bad(path, lineno, f"Documentation={url}: {by} installs no {m.group(2)} there")
                elif not self.exists(src):
                    self.bad(path, lineno, f"Documentation={url}: its source {src} is not in git ls-files")
                continue
            m = re.match(r"^man:cairn\((\d)\)$", url)
            if m:
                if not self.exists(f"deploy/man/cairn.{m.group(1)}.in"):
                    self.bad(path, lineno, f"Documentation={url}: no deploy/man/cairn.{m.group(1)}.in")
                continue
            if re.match(r"^(https?|man):", url):
                continue  # outside the repository (not fetched: no network here)
            self.bad(path, lineno, f"Documentation={url}: not a URL this check knows")

    def run(self):
        for f in self.files:
            base = posixpath.basename(f)
            kind = None
            if f.endswith(".md"):
                kind = self.markdown
            elif f.endswith(SCRIPT_EXT):
                kind = self.script
            elif f.endswith(".swift"):
                kind = self.swift
            elif "." not in base and f.startswith(("deploy/", ".ci/")):
                head = self.text(f) or ""
                if head.startswith("#!"):
                    kind = self.script
            if kind is None:
                continue
            if f.startswith("Tests/Fixtures/"):
                continue  # other people's files, kept as they came
            self.scanned.add(f)
            kind(f)
        return self.broken


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    args = ap.parse_args()
    c = Checker(args.root)
    broken = c.run()
    for b in broken:
        print(b)
    print(f"check-links: {c.links} links, {len(c.scanned)} files, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
