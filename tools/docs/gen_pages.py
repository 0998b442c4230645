"""Pages of the documentation site made at build time (run by the mkdocs-gen-files plugin).

Nothing written here is committed: the reference pages are read from ``core.registry`` (which
reads the heuristics' and solvers' declarations beside their classes) and
the command line, the results pages from the committed ``results/*/`` folders, and the sections
of ``paper.md`` that list the paper tables from their declarations (``bench.papers``), so none
can drift from what they describe. ``python tools/docs/gen_pages.py OUT`` writes the same pages
into the folder OUT, to read them without building the site.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: a page writer: (path inside the site, text)
Write = Callable[[str, str], None]
#: a file copier: (path inside the site, file on disk)
Copy = Callable[[str, Path], None]


# --------------------------------------------------------------------------- registry
def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _option_rows(options) -> list[str]:
    rows = ["| option | type | default | allowed | what |", "| --- | --- | --- | --- | --- |"]
    for o in options:
        allowed = ""
        if o.choices:
            allowed = ", ".join(f"`{c}`" for c in o.choices)
        elif o.low is not None and o.high is not None:
            allowed = f"{o.low:g} to {o.high:g}"
        elif o.low is not None:
            allowed = f"{'>=' if o.low_ok else '>'} {o.low:g}"
        if o.cap is not None:
            allowed += (", " if allowed else "") + f"at most {o.cap:g}"
        default = o.default_text or ("" if o.default is None else str(o.default))
        rows.append(f"| `{o.flag} {o.metavar}` | {o.kind.__name__} | {_cell(default) or '-'} | "
                    f"{allowed or '-'} | {_cell(o.help)} |")
    return rows


def _puzzles_of(spec) -> str:
    items = (spec,) if isinstance(spec, str) else spec
    return ", ".join(f"`{p}`" for p in items)


def registry_page() -> str:
    from core import pdb_decls
    from core import registry as r

    out = [
        "# Registry reference",
        "",
        "Every puzzle, heuristic and solver the suite knows, with its options, read from",
        "their declarations (`puzzles/declarations.py`, `heuristics/declarations.py`,",
        "`solvers/declarations.py`) when the site is built (this page is not written by hand, so it",
        "cannot drift from the code). `bench list puzzles|heuristics|solvers` prints the same",
        "names. An option is given on the command line as its flag (`bench solve`, `bench h`,",
        "`bench view`) and in a suite file as its name (`suites/README.md`).",
        "",
        "## Puzzles",
        "",
        "| name | summary | family | `--goal` | lower bounds from | optimal search default | "
        "beam width | entry point |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in r.PUZZLES.values():
        bounds = ", ".join(f"`{b}`" for b in e.props.bounds) or "-"
        default = r.default_heuristic(e.name)
        if default:
            default += "".join(f" --{k.replace('_', '-')} {v}"
                               for k, v in r.default_heuristic_args(e.name).items())
        out.append(f"| `{e.name}` | {_cell(e.summary)} | {e.props.family} | "
                   f"{'yes' if e.props.goal_layouts else '-'} | {bounds} | "
                   f"{f'`{default}`' if default else '-'} | {e.props.beam_width:,} | "
                   f"`{e.target}` |")
    out += [
        "",
        f"{' and '.join(f'`{z.prefix}N` ({z.low} to {z.high})' for z in r.SIZED_PUZZLES)} "
        "name other sizes of the last two (an N x N board). The beam width is the one a beam "
        "search runs with when `--width` is left out (a learned model may recommend its own "
        "search, see [Learned heuristics](../heuristics/learned.md)). Puzzle options:",
        "",
        *_option_rows(r.all_options("puzzle").values()),
        "",
        "## Heuristics",
        "",
        "| name | summary | puzzles | admissible | IDA* kernel | needs | entry point |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for e in r.HEURISTICS.values():
        p = e.props
        needs = "pattern database" if p.needs_pdb else \
            "model" if p.needs_model else "-"
        kind = "ranks moves" if p.ranks_moves else \
            "exact" if p.exact else "yes" if p.admissible else "no"
        out.append(f"| `{e.name}` | {_cell(e.summary)} | {_puzzles_of(p.puzzles)} | "
                   f"{kind} | {'yes' if p.kernel else '-'} | {needs} | `{e.target}` |")
    out += ["", "### Heuristic options", ""]
    for e in r.HEURISTICS.values():
        if e.options:
            out += [f"`{e.name}`:", "", *_option_rows(e.options), ""]
    out += [
        "### Pattern databases",
        "",
        "Each is declared once; `bench pdb build PUZZLE NAME` builds its tables and `bench pdb "
        "list` shows which are in the cache. Patterns are tile numbers in the blank-first layout "
        "(goal cells). Tables not marked small enough for the tests are stood in for there by "
        "the same code with small patterns. Build costs were measured on the 2-core development "
        "machine.",
        "",
        "| heuristic | puzzles | patterns | in tests | build |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, d in {**pdb_decls.CUBE_PDBS, **pdb_decls.TILE_PDBS}.items():
        patterns = " / ".join("-".join(str(t) for t in p) for p in d.patterns) or "-"
        stand = "yes" if d.ci else f"stand-in {d.stand_in or 'small patterns'}"
        out.append(f"| `{name}` | {_puzzles_of(d.puzzles)} | {patterns} | {_cell(stand)} | "
                   f"{_cell(d.build) or '-'} |")
    out += [
        "",
        "## Solvers",
        "",
        "| name | summary | optimal | puzzles | heuristic | entry point |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for e in r.SOLVERS.values():
        p = e.props
        if not p.heuristic:
            heur = f"none (runs with `{r.NO_HEURISTIC}`)"
        elif p.needs_kernel:
            heur = "one with an IDA* kernel"
        elif p.policy:
            heur = "any, or a policy"
        else:
            heur = "any distance estimate"
        out.append(f"| `{e.name}` | {_cell(e.summary)} | "
                   f"{'with an admissible heuristic' if p.optimal else 'no'} | "
                   f"{_puzzles_of(p.puzzles)} | {heur} | `{e.target}` |")
    out += ["", "### Solver options", ""]
    for e in r.SOLVERS.values():
        if e.options:
            out += [f"`{e.name}`:", "", *_option_rows(e.options), ""]
        else:
            out += [f"`{e.name}`: no options.", ""]
    return "\n".join(out)


# --------------------------------------------------------------------------- paper tables
def plain(text: str) -> str:
    """Plain text (a declaration's summary) as Markdown that shows it as written: the characters
    Markdown reads as markup escaped."""
    return re.sub(r"([\\`*_\[\]<>#|])", r"\\\1", text)


def _code_list(items) -> str:
    items = [f"`{i}`" for i in items]
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else "".join(items)


def _paper_runs(t) -> str:
    """What ``bench paper NAME`` runs or reads for table ``t``, from its declaration."""
    parts = []
    if t.profile is not None:
        suites = f"suite{'s' if len(t.suites) > 1 else ''} {_code_list(t.suites)}" \
            if t.suites else "its suite"
        parts.append(f"runs profile `{t.profile}` of {suites} (`--profile` for another)")
    if t.count is not None:
        parts.append(f"solves {t.count:,} states per puzzle itself (`--count N` for another "
                     "number)")
    if t.runs == "one":
        parts.append("`--run RUN` reads a finished run instead")
    elif t.runs == "several":
        parts.append("`--run RUN` (repeatable) reads finished runs"
                     + (" instead" if t.profile is not None else ""))
    if t.build:
        parts.append("`--build` builds missing pattern databases first")
    return "; ".join(parts)


def paper_sections() -> str:
    """One section per declared paper table (``bench.papers.PAPERS``, in its order): the
    declaration's summary, what the command runs or reads, its instances, the published figures
    it sets beside ours, the committed results and the page of its method."""
    from bench import papers

    out = []
    for t in papers.declarations():
        out += [f"## `{t.name}`", "", plain(t.summary), "", f"- Command: `bench paper {t.name}`"
                + (f": {_paper_runs(t)}." if _paper_runs(t) else "."),
                f"- Instances: {plain(t.instances)}."]
        if t.published:
            out.append(f"- Published figures: {_code_list(t.published)}.")
        if (RESULTS / t.name).is_dir():
            ours = f"- Ours: [results/{t.name}](results/{t.name}/index.md)"
            if t.from_runs:
                ours += ", made from the runs " + " and ".join(
                    f"[results/{r}](results/{r}/index.md)" for r in t.from_runs)
            out.append(ours + ".")
        else:
            out.append(f"- Ours: none committed yet (`bench paper {t.name} --out results` "
                       f"writes `results/{t.name}/`).")
        if t.method is not None:
            title, page = t.method
            out.append(f"- Method: [{title}]({page}).")
        out.append("")
    return "\n".join(out)


def paper_page() -> str:
    """``docs/paper.md`` (its introduction, written by hand) followed by the tables' sections."""
    intro = (ROOT / "docs" / "paper.md").read_text().rstrip("\n")
    return intro + "\n\n" + paper_sections()


# --------------------------------------------------------------------------- suites
def suites_page() -> str:
    import tomllib

    out = [
        "# Suites reference",
        "",
        "Every suite file in `suites/`, read when the site is built: its puzzle, instance sets "
        "and profiles (file format: [Suites, runs and reports](../suites.md)). "
        "`bench suite list` and `bench suite show NAME` print the same.",
        "",
    ]
    for path in sorted((ROOT / "suites").glob("*.toml")):
        data = tomllib.loads(path.read_text())
        suite = data.get("suite", {})
        out += [f"## {suite.get('name', path.stem)}", "",
                f"Puzzle `{suite.get('puzzle', '?')}` (`suites/{path.name}`): "
                f"{_cell(suite.get('description', ''))}", "",
                "| instance set | source | size | optimal lengths | what |",
                "| --- | --- | --- | --- | --- |"]
        for inst in data.get("instances", []):
            source = inst.get("source", "")
            if source == "file":
                source += f" `{inst.get('path', '')}`"
            if inst.get("fallback"):
                source += f" (else {inst['fallback']})"
            size = inst.get("count", "")
            if inst.get("depth"):
                size = f"{size} per depth {inst['depth']}"
            what = inst.get("description") or inst.get("citation") or ""
            out.append(f"| `{inst.get('name', '')}` | {_cell(source)} | {_cell(size) or '-'} | "
                       f"{_cell(inst.get('optimal', '-'))} | {_cell(what) or '-'} |")
        profiles = data.get("profiles", {})
        if profiles:
            out += ["", "| profile | instance sets | configurations | what |",
                    "| --- | --- | --- | --- |"]
            for name, prof in profiles.items():
                sets = ", ".join(prof.get("instances", [])) or "all"
                configs = ", ".join(prof.get("configs", [])) or "all"
                out.append(f"| `{name}` | {_cell(sets)} | {_cell(configs)} | "
                           f"{_cell(prof.get('description', '')) or '-'} |")
        out.append("")
    return "\n".join(out)


# --------------------------------------------------------------------------- command line
def cli_page() -> str:
    import click

    from bench.cli import COMMANDS, cli

    out = [
        "# Command-line reference",
        "",
        "The `--help` of every `bench` command, printed when the site is built. Bad input is "
        "one line on stderr and exit status 2.",
        "",
    ]

    def walk(cmd: click.Command, path: list[str], parent: click.Context | None) -> None:
        ctx = click.Context(cmd, info_name=path[-1], parent=parent, terminal_width=100,
                            max_content_width=100)
        level = "#" * min(len(path) + 1, 4)
        out.extend([f"{level} {' '.join(path)}", "", "```text", cmd.get_help(ctx), "```", ""])
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                sub = cmd.get_command(ctx, name)
                if sub is not None:
                    walk(sub, [*path, name], ctx)

    root = click.Context(cli, info_name="bench", terminal_width=100, max_content_width=100)
    out.extend(["## bench", "", "```text", cli.get_help(root), "```", ""])
    for name in COMMANDS:
        sub = cli.get_command(root, name)
        if sub is not None:
            walk(sub, ["bench", name], root)
    return "\n".join(out)


# --------------------------------------------------------------------------- API
#: modules with an API page (mkdocstrings reads their docstrings)
API_MODULES = [
    "core.registry", "core.props", "core.options", "core.pdb_decls", "core.errors",
    "core.status", "core.limits", "core.rows", "core.paths",
    "puzzles.base", "learning.targets.base", "heuristics.base", "solvers.base", "suites.schema", "suites.reference",
    "bench.runner", "bench.report",
]


def api_pages(write: Write) -> list[str]:
    names = []
    for mod in API_MODULES:
        write(f"reference/api/{mod}.md", f"# `{mod}`\n\n::: {mod}\n")
        names.append(mod)
    index = ["# API reference", "",
             "Docstrings of the modules a plugin or a script is most likely to use, read when "
             "the site is built.", ""]
    index += [f"- [`{m}`]({m}.md)" for m in names]
    write("reference/api/index.md", "\n".join(index) + "\n")
    return names


# --------------------------------------------------------------------------- results
RESULTS = ROOT / "results"
#: the files of a results folder whose text is shown, in order
TEXT_FILES = ("README.md", "table.md", "summary.md", "quality.md")
IMAGES = (".png", ".svg", ".jpg")
_LINK = re.compile(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)")
_TABLE_LINE = re.compile(r"^\|.*\|\s*$")


def _first_table(text: str) -> list[str]:
    lines = text.splitlines()
    for i in range(len(lines) - 1):
        if _TABLE_LINE.match(lines[i]) and re.match(r"^\|\s*:?-{3,}", lines[i + 1]):
            j = i
            while j < len(lines) and _TABLE_LINE.match(lines[j]):
                j += 1
            return lines[i:j]
    return []


def _title(folder: Path, texts: dict[str, str]) -> str:
    for text in texts.values():
        for line in text.splitlines():
            if line.startswith("# "):
                return line[2:].strip()
    return folder.name


def _provenance(folder: Path, texts: dict[str, str]) -> tuple[str, str, str]:
    """(command, date, machine) of a results folder, from its files; '' where unknown."""
    command = date = machine = ""
    for name in ("table.md", "quality.md"):
        text = texts.get(name, "")
        m = re.search(r"^Command: `([^`]+)`", text, re.M)
        if m and not command:
            command = m.group(1)
        m = re.search(r"^Made (\S+(?: [0-9:]+ UTC)?) on (.+?), git", text, re.M)
        if m and not date:
            date, machine = m.group(1), m.group(2)
    m = re.search(r"^Made by:\s*\n\s*\n- `([^`]+)` \(([^,]+), (.+?), git", texts.get("summary.md", ""),
                  re.M)
    if m:
        command = command or m.group(1)
        date = date or m.group(2)
        machine = machine or m.group(3)
    for name in ("provenance.json", "run.json"):
        path = folder / name
        if not path.is_file() or (date and machine):
            continue
        try:
            data = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        sessions = data.get("sessions") if name == "run.json" else [data]
        if not isinstance(sessions, list) or not sessions or not isinstance(sessions[0], dict):
            continue
        s = sessions[0]
        date = date or str(s.get("date", ""))
        if not machine and s.get("cpu"):
            machine = f"{s['cpu']}, {s.get('cores', '?')} cores, GPU {s.get('gpu', 'none')}"
        if not command and s.get("argv"):
            argv = [str(a) for a in s["argv"]]
            command = " ".join(["bench", *argv[1:]])
    readme = texts.get("README.md", "")
    if not command and readme:
        command = _readme_command(readme)
    if not command:
        command = _listed_command(folder.name)
    if not date:
        m = re.search(r"\b(20\d\d-\d\d-\d\d)\b", readme)
        date = m.group(1) if m else ""
    if not machine:
        for pattern in (r"(one NVIDIA [A-Z0-9]+)", r"(the 2-core development machine)",
                        r"((?:AMD EPYC|Intel[^,;()\n]*?),? \d+ cores)",
                        r"(the (?:shared )?2-core [a-zA-Z -]*machine)"):
            m = re.search(pattern, readme)
            if m:
                machine = " ".join(m.group(1).split())
                break
    return command, date, machine


_COMMAND = re.compile(r"^(nice -n \d+ )?(bench |python |OUT=|experiments/|tools/|torchrun )")


def _readme_command(readme: str) -> str:
    """The first command line in a README's code blocks (continuations joined, comment
    dropped), else its first inline code that reads as a command; '' if none."""
    blocks = re.findall(r"(?:^|\n)\n((?: {4}.+\n?)+)", readme)
    blocks += re.findall(r"```[a-z]*\n(.+?)```", readme, re.S)
    for block in blocks:
        lines = [line.strip() for line in block.splitlines()]
        for i, line in enumerate(lines):
            if _COMMAND.match(line):
                while line.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line[:-1].rstrip() + " " + lines[i]
                return re.sub(r"\s+#.*$", "", line)
    spans = [s for s in re.findall(r"`([^`\n]+)`", readme) if _COMMAND.match(s)]
    return spans[0] if spans else ""


def _listed_command(name: str) -> str:
    """The first command in ``results/README.md``'s row for folder ``name`` ('' if none)."""
    index = RESULTS / "README.md"
    if not index.is_file():
        return ""
    for line in index.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 3 and f"`{name}/`" in cells[0]:
            spans = re.findall(r"`([^`]+)`", cells[-1])
            return spans[0] if spans else ""
    return ""


def _rewrite_links(text: str, folder: Path, here: str, known: set[str]) -> str:
    """Links of a results file made to work in the site: images and files copied beside the
    page stay, a link to another results folder goes to its page, a web address stays, and
    every other link becomes its text and the repository path (in code)."""

    def repl(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        path, _, anchor = target.partition("#")
        resolved = (folder / path).resolve()
        try:
            rel = resolved.relative_to(ROOT).as_posix()
        except ValueError:
            rel = path
        parts = rel.split("/")
        if parts[0] == "results" and len(parts) >= 2 and parts[1] in known:
            name = parts[1]
            if len(parts) == 2 or parts[2] in TEXT_FILES or parts[2] == "":
                page = "index.md" if name == here else f"../{name}/index.md"
                return f"{bang}[{label}]({page})"
            if name == here and len(parts) == 3 and resolved.suffix in IMAGES:
                return f"{bang}[{label}]({parts[2]})"
        if bang:
            return f"*({label}: `{rel}`)*"
        return f"{label} (`{rel}`)" if label.strip("`") != rel else f"`{rel}`"

    return _LINK.sub(repl, text)


def _demote(text: str) -> str:
    """Headings one level down (the page has its own title) and outside fenced code only."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and re.match(r"^#{1,5} ", line):
            line = "#" + line
        out.append(line)
    return "\n".join(out)


def results_pages(write: Write, copy: Copy) -> list[str]:
    folders = sorted(p for p in RESULTS.iterdir() if p.is_dir() and not p.name.startswith("."))
    known = {p.name for p in folders}
    index = [
        "# Results index",
        "",
        "Every committed results folder (`results/*/`), read when the site is built: the",
        "command that made it, when, on which machine, and its headline table (the first table",
        "of its `table.md`, `summary.md`, `quality.md` or `README.md`). Each figure is written in",
        "its folder only; the other pages of this site link here instead of copying numbers.",
        "`results/README.md` lists the commands that regenerate the committed tables.",
        "",
    ]
    rows = ["| folder | what | made |", "| --- | --- | --- |"]
    sections = []
    for folder in folders:
        texts = {n: (folder / n).read_text() for n in TEXT_FILES if (folder / n).is_file()}
        title = _title(folder, texts)
        command, date, machine = _provenance(folder, texts)
        page = f"results/{folder.name}/index.md"
        made = ", ".join(x for x in (date[:10], machine) if x) or "see the folder"
        rows.append(f"| [{folder.name}]({folder.name}/index.md) | {_cell(title)} | {_cell(made)} |")
        head = _first_table(texts.get("table.md") or texts.get("summary.md")
                            or texts.get("quality.md") or texts.get("README.md", ""))
        images = sorted(p for p in folder.iterdir() if p.suffix in IMAGES)
        for img in images:
            copy(f"results/{folder.name}/{img.name}", img)
        meta = [
            f"# {folder.name}: {title}" if title != folder.name else f"# {folder.name}",
            "",
            f"Folder: `results/{folder.name}/`"
            + (f". Command: `{command}`" if command else "")
            + (f". Date: {date}" if date else "")
            + (f". Machine: {machine}" if machine else "") + ".",
            "",
        ]
        section = [f"## {folder.name}", "", f"[{_cell(title)}]({folder.name}/index.md)", ""]
        if command:
            section += [f"Command: `{command}`", ""]
        if date or machine:
            section += [f"Made: {made}", ""]
        if head:
            section += [*(_rewrite_links(line, folder, folder.name, known)
                          .replace("](index.md)", f"]({folder.name}/index.md)")
                          .replace("](../", "](") for line in head), ""]
        sections += section
        body = []
        for name, text in texts.items():
            body += [f"## `{name}`", "", _demote(_rewrite_links(text, folder, folder.name, known)),
                     ""]
        for img in images:
            if not any(img.name in t for t in texts.values()):
                body += [f"![{img.name}]({img.name})", ""]
        others = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir()
                        if p.name not in texts and p.suffix not in IMAGES)
        if others:
            body += ["## Other files", "",
                     "In the folder, not shown here: " + ", ".join(f"`{o}`" for o in others)
                     + ".", ""]
        write(page, "\n".join(meta + body))
    write("results/index.md", "\n".join(index + rows + [""] + sections))
    return sorted(known)


# --------------------------------------------------------------------------- architecture
def architecture_page() -> str:
    text = (ROOT / "ARCHITECTURE.md").read_text()

    def repl(m: re.Match[str]) -> str:
        bang, label, target = m.groups()
        if re.match(r"^[a-z]+:", target) or target.startswith("#"):
            return m.group(0)
        return f"{label} (`{target}`)"

    return _LINK.sub(repl, text)


# --------------------------------------------------------------------------- driver
def generate(write: Write, copy: Copy) -> None:
    write("reference/registry.md", registry_page())
    write("reference/cli.md", cli_page())
    write("reference/suites.md", suites_page())
    write("architecture.md", architecture_page())
    write("paper.md", paper_page())
    api_pages(write)
    results_pages(write, copy)


def _mkdocs() -> None:
    import mkdocs_gen_files

    def write(path: str, text: str) -> None:
        with mkdocs_gen_files.open(path, "w") as fh:
            fh.write(text)

    def copy(path: str, src: Path) -> None:
        with mkdocs_gen_files.open(path, "wb") as fh:
            fh.write(src.read_bytes())

    generate(write, copy)


if __name__ == "__main__" and len(sys.argv) == 2:
    out_dir = Path(sys.argv[1])

    def _write(path: str, text: str) -> None:
        (out_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / path).write_text(text)

    def _copy(path: str, src: Path) -> None:
        (out_dir / path).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / path).write_bytes(src.read_bytes())

    generate(_write, _copy)
elif __name__ == "<run_path>":  # run by mkdocs-gen-files (runpy.run_path); imported: nothing
    _mkdocs()
