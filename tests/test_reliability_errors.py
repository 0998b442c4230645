"""Hostile inputs of every kind the command line reads are one line on stderr naming the
argument and the fault, exit status 2, never a traceback: ONNX models whose outputs or cards lie,
files that are not checkpoints, suite files whose fallbacks loop or whose TOML nests without
end, instance and run files whose numbers do not fit, goal tables larger than the machine,
plugins whose code raises, exits, prints or never returns, and counts without a cap."""

from __future__ import annotations

import dataclasses
import importlib.metadata
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli

from core import plugins, registry
from core.errors import InputError
from core.props import HeuristicProps, SolverProps

ROOT = Path(__file__).resolve().parents[1]


def one_line_error(code: int, err: str, *words: str) -> str:
    """The error line, after checking it is the only line, exit 2, and holds ``words``."""
    assert code == 2, err
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# --------------------------------------------------------------------------- ONNX models
onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")


def _onnx_model(path: Path, out_shape: list, body: list, in_width: int | str = 9,
                **card: object) -> Path:
    """A tiny puzzle8 network built node by node (``f``: the codes as floats; ``zero``,
    ``one``, ``ax1``: constants), with its card."""
    from onnx import TensorProto, helper

    x = helper.make_tensor_value_info("codes", TensorProto.INT64, ["batch", in_width])
    y = helper.make_tensor_value_info("value", TensorProto.FLOAT, out_shape)
    nodes = [helper.make_node("Cast", ["codes"], ["f"], to=TensorProto.FLOAT), *body]
    graph = helper.make_graph(nodes, "g", [x], [y], initializer=[
        helper.make_tensor("zero", TensorProto.FLOAT, [], [0.0]),
        helper.make_tensor("one", TensorProto.INT64, [1], [1]),
        helper.make_tensor("ax1", TensorProto.INT64, [1], [1])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    full = {"puzzle": "puzzle8", "encoding": "onehot-tiles", "input": "codes", "output": "value",
            "search": {"solver": "bwas"}, **card}
    path.with_name(path.stem + ".card.json").write_text(json.dumps(full))
    return path


def _zero_value(path: Path, **kw: object) -> Path:
    """A value network that answers 0 for every state, shape [batch]."""
    from onnx import helper

    return _onnx_model(path, ["batch"], [helper.make_node("Mul", ["f", "zero"], ["z"]),
                                         helper.make_node("ReduceSum", ["z", "ax1"], ["value"],
                                                          keepdims=0)], **kw)


def _solve_onnx(capsys, model: Path) -> tuple[int, str, str]:
    return run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic", "onnx",
                   "--model", str(model), "--solver", "beam")


def test_an_onnx_output_of_one_value_for_a_batch_is_refused(tmp_path, capsys):
    from onnx import helper

    # sums the whole batch into one number: right for the goal alone, wrong for a batch
    model = _onnx_model(tmp_path / "one.onnx", ["batch"], [
        helper.make_node("Mul", ["f", "zero"], ["z"]),
        helper.make_node("ReduceSum", ["z"], ["s"], keepdims=0),
        helper.make_node("Reshape", ["s", "one"], ["value"])])
    code, _, err = _solve_onnx(capsys, model)
    one_line_error(code, err, "error: --model: ", "the network gave an output of shape [1] for",
                   "needs [")


def test_an_onnx_policy_with_more_logits_than_moves_is_refused(tmp_path, capsys):
    from onnx import helper

    # declared [batch, 4] (the 8-puzzle's moves), gives [batch, 9]
    model = _onnx_model(tmp_path / "pol.onnx", ["batch", 4],
                        [helper.make_node("Mul", ["f", "zero"], ["value"])], output="policy",
                        search={"solver": "beam"})
    code, _, err = _solve_onnx(capsys, model)
    one_line_error(code, err, "error: --model: ", "output of shape [1, 9] for 1 states",
                   "policy needs [1, 4]")


def test_onnxruntime_refusals_are_whole_sentences(tmp_path, capsys):
    model = _onnx_model(tmp_path / "nodes.onnx", ["batch"], [])  # "value" is never computed
    code, _, err = _solve_onnx(capsys, model)
    line = one_line_error(code, err, "is not a model onnxruntime can load (Fail: This is an "
                                     "invalid model. Graph output (value) does not exist in the "
                                     "graph)")
    assert "onnxruntime_src" not in line and line.count(str(model)) == 1


def test_an_onnx_model_that_fails_on_a_batch_is_one_line(tmp_path, capsys):
    from onnx import TensorProto, helper

    # reshapes its input to [1, 9]: right for the goal alone, an onnxruntime failure for a batch
    model = _onnx_model(tmp_path / "fixed.onnx", ["batch"], [
        helper.make_node("Constant", [], ["shape"],
                         value=helper.make_tensor("s", TensorProto.INT64, [2], [1, 9])),
        helper.make_node("Reshape", ["f", "shape"], ["r"]),
        helper.make_node("Mul", ["r", "zero"], ["z"]),
        helper.make_node("ReduceSum", ["z", "ax1"], ["value"], keepdims=0)])
    code, _, err = _solve_onnx(capsys, model)
    line = one_line_error(code, err, "onnxruntime failed on a batch of ",
                          "The input tensor cannot be reshaped to the requested shape")
    assert "onnxruntime_src" not in line


def test_an_onnx_model_with_text_outputs_is_refused(tmp_path, capsys):
    from onnx import TensorProto, helper

    model = _onnx_model(tmp_path / "text.onnx", ["batch"], [
        helper.make_node("ReduceSum", ["f", "ax1"], ["m"], keepdims=0),
        helper.make_node("Mul", ["m", "zero"], ["z"]),
        helper.make_node("Cast", ["z"], ["value"], to=TensorProto.STRING)])
    graph = onnx.load(str(model))
    graph.graph.output[0].type.tensor_type.elem_type = TensorProto.STRING
    onnx.save(graph, str(model))
    code, _, err = _solve_onnx(capsys, model)
    one_line_error(code, err, "the network's output is of type object, not numbers")


def test_the_zero_network_solves(tmp_path, capsys):
    """The hand-built network of the cases below is a valid model (the faults are the cards')."""
    code, out, err = _solve_onnx(capsys, _zero_value(tmp_path / "ok.onnx", in_width="width"))
    assert code == 0 and "solved" in out, err


@pytest.mark.parametrize("card,words", [
    ({"input": "one-hot", "symbols": 2}, "symbols 2 does not hold the codes of encoding "
                                         "'onehot-tiles' (they run from 0 to 8"),
    ({"input": "one-hot", "symbols": 10**9}, "an integer in [1, 4096]), got 1000000000"),
    ({"input": "one-hot", "symbols": 2**70}, "got 1180591620717411303424"),
    ({"input": "one-hot", "symbols": 4.5}, "got 4.5"),
])
def test_onnx_card_symbols_are_bounded(card, words, tmp_path, capsys):
    model = _zero_value(tmp_path / "m.onnx", in_width="width", **card)
    code, _, err = _solve_onnx(capsys, model)
    one_line_error(code, err, "error: --model: card ", words)


@pytest.mark.parametrize("text,words", [
    ("[" * 100_000 + "]" * 100_000, "nests arrays or objects too deeply"),
    ('{"a":' * 100_000 + "1" + "}" * 100_000, "nests arrays or objects too deeply"),
    (" " * (2 << 20), "a card is a few lines"),
    ("\xff\xfe", "is not JSON"),
], ids=["arrays", "objects", "huge", "binary"])
def test_hostile_onnx_cards_are_one_line(text, words, tmp_path, capsys):
    model = _zero_value(tmp_path / "m.onnx")
    (tmp_path / "m.card.json").write_text(text, encoding="latin-1")
    code, _, err = _solve_onnx(capsys, model)
    one_line_error(code, err, "error: --model: card ", words)


def test_one_hot_passes_are_bounded(tmp_path):
    """A wide one-hot input is fed in passes of at most ONNX's pass size, not ``chunk`` states."""
    from heuristics import onnx as onnx_heuristic

    model = _zero_value(tmp_path / "m.onnx", in_width="width", input="one-hot", symbols=4096)
    puzzle = registry.get_puzzle("puzzle8")
    h = registry.get_heuristic("onnx", puzzle, model=str(model))
    seen: list[int] = []
    run = h.session.run
    h.session.run = lambda names, feed, *options: (seen.append(next(iter(feed.values())).nbytes),
                                         run(names, feed))[1]
    states = puzzle.scramble(600, 10, np.random.default_rng(0))[0]
    assert np.array_equal(h(states), np.zeros(600, np.float32))
    assert sum(seen) == 600 * 9 * 4096 * 8 and max(seen) <= onnx_heuristic.ONEHOT_PASS_BYTES


# --------------------------------------------------------------------------- checkpoints
PASSWD = "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"


def test_a_text_file_is_not_a_checkpoint(tmp_path, capsys):
    text = tmp_path / "passwd"
    text.write_text(PASSWD)
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "davi", "--solver", "beam", "--model", str(text))
    one_line_error(code, err, f"checkpoint {text}: not a checkpoint",
                   "its bytes are not a torch.save file")
    code, _, err = run_cli(capsys, "models", "export", str(text), "--out", str(tmp_path / "x"))
    one_line_error(code, err, f"checkpoint {text}: not a checkpoint")
    assert not (tmp_path / "x").exists() or not any((tmp_path / "x").iterdir())


@pytest.mark.parametrize("make,words", [
    (lambda b: b[: len(b) // 2], "(PytorchStreamReader failed reading zip archive: failed finding "
                                 "central directory)"),
    (lambda b: b"cos\nsystem\n(S'echo hi'\ntR.", "objects other than tensors, dicts, lists, "
                                                 "strings and numbers: os.system)"),
    (lambda b: b"12345\n", "its bytes are not a torch.save file: unsupported pickle operand 49)"),
    (lambda b: b"", "not a checkpoint"),
])
def test_a_corrupt_checkpoint_is_named_in_full(make, words, tmp_path):
    from learning.checkpoint import CheckpointError, load_checkpoint
    from learning.model_store import SHIPPED_DIR

    bad = tmp_path / "model.pt"
    bad.write_bytes(make((SHIPPED_DIR / "puzzle8" / "model.pt").read_bytes()))
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(bad)
    message = str(info.value)
    assert "\n" not in message and words in message and message.endswith(")"), message
    assert "Weights only load failed" not in message and "https://" not in message


def test_a_text_file_in_a_suite_is_an_error_row(tmp_path):
    from bench.executor import InlineExecutor
    from bench.run_record import ROWS, read_rows
    from bench.runner import plan_run, run_plan
    from suites.schema import load_suite

    text = tmp_path / "passwd"
    text.write_text(PASSWD)
    suite = tmp_path / "s.toml"
    suite.write_text(textwrap.dedent(f"""
        [suite]
        name = "s"
        puzzle = "puzzle8"
        [[instances]]
        name = "walks"
        source = "scramble"
        depth = [3]
        count = 1
        [[configs]]
        name = "net"
        heuristic = "value-net"
        heuristic_args = {{ model = "{text}" }}
        solver = "beam"
        """))
    run_plan(plan_run(load_suite(suite)), tmp_path / "run", InlineExecutor(), progress=False,
             prepare=False)
    (row,) = read_rows(tmp_path / "run" / ROWS)
    assert row["status"] == "error"
    assert row["error"].startswith(f"CheckpointError: checkpoint {text}: not a checkpoint")
    assert "IndexError" not in row["error"] and row["error"].endswith(")")


# --------------------------------------------------------------------------- suite files
SUITE_HEAD = """
[suite]
name = "hostile"
puzzle = "puzzle8"
"""
CONFIG = """
[[configs]]
name = "m"
heuristic = "manhattan"
solver = "astar"
"""


def _sets(*pairs: tuple[str, str | None]) -> str:
    out = ""
    for name, fallback in pairs:
        out += f'\n[[instances]]\nname = "{name}"\nsource = "deepcubea"\n'
        if fallback:
            out += f'fallback = "{fallback}"\n'
    return out


@pytest.mark.parametrize("sets,loop", [
    (_sets(("a", "a")), "(a -> a)"),
    (_sets(("a", "b"), ("b", "a")), "(a -> b -> a)"),
    (_sets(("a", "b"), ("b", "c"), ("c", "b")), "(b -> c -> b)"),
])
def test_fallback_cycles_are_refused(sets, loop, tmp_path, capsys):
    path = tmp_path / "cyc.toml"
    path.write_text(SUITE_HEAD + sets + CONFIG)
    code, _, err = run_cli(capsys, "suite", "show", str(path))
    one_line_error(code, err, "cyc.toml: instances[0].fallback: the fallbacks form a cycle", loop)


def test_a_fallback_chain_that_ends_is_accepted(tmp_path):
    from suites.schema import load_suite

    path = tmp_path / "chain.toml"
    path.write_text(SUITE_HEAD + _sets(("a", "b"), ("b", None)) + CONFIG)
    assert load_suite(path).instance_sets["a"].fallback == "b"


@pytest.mark.parametrize("body", ["x = " + "[" * 2000 + "]" * 2000,
                                  "x = " + "{a = " * 2000 + "1" + "}" * 2000],
                         ids=["arrays", "tables"])
def test_deeply_nested_toml_is_one_line(body, tmp_path, capsys):
    path = tmp_path / "deep.toml"
    path.write_text(body + "\n")
    code, _, err = run_cli(capsys, "suite", "show", str(path))
    one_line_error(code, err, "deep.toml: arrays or tables nested too deeply")


# --------------------------------------------------------------------------- instance and run files
@pytest.mark.parametrize("optimal", ["100000000000000000000000", "-3", "2147483648"])
def test_instance_optima_out_of_range_name_the_line(optimal, tmp_path):
    from suites.schema import load_suite
    from suites.sources import load_instances

    (tmp_path / "inst.txt").write_text(f"# id optimal tiles\n1 2 1 2 3 4 5 6 7 0 8\n"
                                       f"2 {optimal} 1 2 3 4 5 6 0 7 8\n")
    suite = tmp_path / "f.toml"
    suite.write_text(SUITE_HEAD + '[[instances]]\nname = "f"\nsource = "file"\npath = "inst.txt"\n'
                     'format = "tiles"\noptimal = "file"\n' + CONFIG)
    with pytest.raises(InputError, match=r"^inst.txt:3: optimal length .* is not a move count "
                                         r"in \[0, 2147483647\]$"):
        load_instances(load_suite(suite), "f")


def _row(**changes: object) -> dict:
    row = {"key": "s/1/m", "suite": "s", "instance_set": "s", "instance": "1", "config": "m",
           "puzzle": "puzzle8", "goal": None, "heuristic": "manhattan", "solver": "astar",
           "params": "{}", "status": "solved", "length": 2, "optimal": 2, "lower_bound": 2,
           "nodes_generated": 5, "nodes_expanded": 2, "iterations": 1, "time_s": 0.01,
           "state": "1 2 3 4 5 6 0 7 8", "actions": "R R"}
    row.update(changes)
    return row


@pytest.mark.parametrize("change,words", [
    ({"optimal": 6.5}, "optimal: expected an integer or null, got 6.5"),
    ({"optimal": 1e30}, "optimal: expected an integer or null, got 1e+30"),
    ({"optimal": 10**30}, "optimal: expected an integer or null"),
    ({"length": "2"}, "length: expected an integer or null, got '2'"),
    ({"nodes_generated": True}, "nodes_generated: expected an integer or null, got True"),
    ({"lower_bound": [2]}, "lower_bound: expected an integer or null"),
    ({"params": "not json"}, "params: not JSON"),
    ({"params": "[1, 2]"}, "params: expected a JSON object, got '[1, 2]'"),
    ({"params": 5}, "params: expected the configuration's arguments as JSON text, got 5"),
    ({"params": "[" * 5000 + "]" * 5000}, "params: not JSON"),
], ids=["fraction", "1e30", "10**30", "text", "bool", "list", "params-text", "params-list",
        "params-number", "params-deep"])
def test_run_rows_that_do_not_fit_name_the_line(change, words, tmp_path, capsys):
    run = tmp_path / "run"
    run.mkdir()
    rows = [_row(), _row(key="s/2/m", instance="2", **change)]
    (run / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    code, _, err = run_cli(capsys, "report", str(run))
    one_line_error(code, err, f"error: RUN_DIR: {run / 'rows.jsonl'}:2: {words}")


def test_a_table_row_that_does_not_fit_names_its_line(tmp_path):
    import pandas as pd

    from bench.run_table import read_table

    run = tmp_path / "run"
    run.mkdir()
    pd.DataFrame([_row(), _row(key="s/2/m", optimal=6.5)]).to_csv(run / "results.csv",
                                                                   index=False)
    with pytest.raises(InputError, match=r"results.csv:3: optimal: expected an integer or null, "
                                         r"got 6.5$"):
        read_table(run)
    pd.DataFrame([_row(), _row(key="s/2/m", optimal=None)]).to_csv(run / "results.csv",
                                                                    index=False)
    assert list(read_table(run)["optimal"].astype(object).fillna(-1)) == [2, -1]


# --------------------------------------------------------------------------- memory
def test_goal_tables_without_a_limit_fit_the_machine(monkeypatch, capsys):
    from solvers import goal_table

    monkeypatch.setattr(goal_table, "available_bytes", lambda: 4 << 20)
    monkeypatch.setattr(goal_table, "_CACHE", {})
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "manhattan", "--solver", "beam", "--goal-depth", "25")
    one_line_error(code, err, "error: --goal-depth: 25 on puzzle8 needs",
                   "more than the machine's available memory (4 MiB; no --memory-limit given)")
    # the same table within the machine's memory is built, and the search uses it
    monkeypatch.setattr(goal_table, "available_bytes", lambda: 8 << 30)
    code, out, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                             "manhattan", "--solver", "beam", "--goal-depth", "4", "--json")
    assert code == 0 and json.loads(out)["length"] == 2, err


def test_an_unforeseen_memory_error_is_one_line(monkeypatch, capsys):
    from bench.commands import solve

    def exhausted(*a, **kw):
        raise MemoryError("Unable to allocate 4.96 GiB for an array")

    monkeypatch.setattr(solve, "solve_state", exhausted)
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", "--heuristic",
                           "manhattan")
    one_line_error(code, err, "error: out of memory (Unable to allocate 4.96 GiB")


# --------------------------------------------------------------------------- plugins
BAD_PLUGIN = '''
import numpy as np
from heuristics.manhattan import Manhattan
from solvers.base import Solver

class Raises(Manhattan):
    def __call__(self, states):
        raise RuntimeError("the plugin's network is not loaded")

class Extra(Manhattan):
    def __call__(self, states):
        v = super().__call__(states)
        return np.concatenate([v, v[:1]])

class Broken(Manhattan):
    def __init__(self, puzzle):
        raise KeyError("weights")

class Quits(Manhattan):
    def __call__(self, states):
        raise SystemExit(3)

class Boom(Solver):
    name = "boom"
    def solve(self, puzzle, heuristic, start, limits):
        raise ZeroDivisionError("boom")
'''


@pytest.fixture
def bad_plugins(tmp_path, monkeypatch):
    """Entries of an installed package ``bench-bad`` (as the loader adds them)."""
    (tmp_path / "plugmod_bad.py").write_text(BAD_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("plugmod_bad", None)
    for name, cls in (("raises-h", "Raises"), ("extra-h", "Extra"), ("broken-h", "Broken"),
                      ("quits-h", "Quits")):
        monkeypatch.setitem(registry.HEURISTICS, name, registry.Entry(
            name, f"plugmod_bad:{cls}", "bad", {}, HeuristicProps("puzzle8"), plugin="bench-bad"))
    monkeypatch.setitem(registry.SOLVERS, "boom", registry.Entry(
        "boom", "plugmod_bad:Boom", "raises", {}, SolverProps(), plugin="bench-bad"))


@pytest.mark.parametrize("args,words", [
    (["--heuristic", "raises-h", "--solver", "astar"],
     "error: --heuristic: plugin heuristic raises-h (bench-bad) failed: RuntimeError: the "
     "plugin's network is not loaded"),
    (["--heuristic", "broken-h", "--solver", "astar"],
     "error: --heuristic: plugin heuristic broken-h (bench-bad) failed: KeyError: 'weights'"),
    (["--heuristic", "extra-h", "--solver", "astar"],
     "error: --heuristic: plugin heuristic extra-h (bench-bad) gave values of shape [6] for 5 "
     "states"),
    (["--heuristic", "extra-h", "--solver", "beam"], "gave values of shape [6] for 5 states"),
    (["--heuristic", "manhattan", "--solver", "boom"],
     "error: --solver: plugin solver boom (bench-bad) failed: ZeroDivisionError: boom"),
    (["--heuristic", "raises-h", "--solver", "boom"], "plugin heuristic raises-h (bench-bad)"),
    (["--heuristic", "quits-h", "--solver", "astar"],
     "error: --heuristic: plugin heuristic quits-h (bench-bad) called sys.exit(3)"),
])
def test_plugin_code_that_fails_under_solve_is_one_line(args, words, bad_plugins, capsys):
    code, _, err = run_cli(capsys, "solve", "puzzle8", "--scramble", "U L", *args)
    one_line_error(code, err, words)


def test_plugin_heuristic_that_fails_under_h_is_one_line(bad_plugins, capsys):
    code, _, err = run_cli(capsys, "h", "puzzle8", "raises-h", "--scramble", "U L")
    one_line_error(code, err, "error: HEURISTIC: plugin heuristic raises-h (bench-bad) failed")


def test_builtin_faults_are_not_blamed_on_plugins(bad_plugins, monkeypatch, capsys):
    """With a plugin solver, a fault in a built-in heuristic is not reported as the plugin's."""
    from bench.commands.common import PluginFaults

    entries = [("--solver", "solver", registry.SOLVERS["boom"]),
               ("--heuristic", "heuristic", registry.HEURISTICS["raises-h"])]
    with pytest.raises(InputError, match="plugin solver boom"):
        with PluginFaults(entries[:1]):
            registry.get_solver("boom").solve(None, None, None, None)
    with pytest.raises(ZeroDivisionError):  # built-in code, two plugins involved: not blamed
        with PluginFaults(entries):
            _ = 1 / 0


HOSTILE_IMPORT = '''
import os, sys
mode = os.environ.get("PLUG_MODE", "")
if mode == "exit":
    sys.exit(3)
if mode == "interrupt":
    raise KeyboardInterrupt
if mode == "print":
    print("hello from a plugin")
if mode == "loop":
    while True:
        pass
from core.registry import Entry
X = Entry("hostile-h", "heuristics.manhattan:Manhattan", "Manhattan again", {},
          {"puzzles": "puzzle8", "admissible": True})
'''


class _EP:
    """What the loader reads of an entry point."""

    def __init__(self, name: str, value: str, group: str) -> None:
        self._ep = importlib.metadata.EntryPoint(name, value, group)
        self.name, self.value, self.group = name, value, group
        self.dist = type("Dist", (), {"name": "bench-hostile"})()

    def load(self):
        return self._ep.load()


@pytest.mark.parametrize("mode,words", [
    ("exit", "importing plugmod_hostile:X called sys.exit(3)"),
    ("interrupt", "importing plugmod_hostile:X was interrupted (KeyboardInterrupt)"),
    ("print", "importing plugmod_hostile:X wrote 20 characters to standard output "
              "('hello from a plugin'); a declaration module must not print"),
    ("loop", "importing plugmod_hostile:X did not finish within 0.5 s"),
    ("", None),
])
def test_hostile_plugin_imports_are_one_problem(mode, words, tmp_path, monkeypatch, capsys):
    (tmp_path / "plugmod_hostile.py").write_text(HOSTILE_IMPORT)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("plugmod_hostile", None)
    monkeypatch.setenv("PLUG_MODE", mode)
    monkeypatch.setenv(plugins.DEADLINE_ENV, "0.5")
    monkeypatch.delenv(plugins.DISABLE_ENV, raising=False)
    tables = {"puzzle": dict(registry.PUZZLES), "heuristic": dict(registry.HEURISTICS),
              "solver": dict(registry.SOLVERS)}
    group = plugins.GROUPS["heuristic"]
    t0 = time.perf_counter()
    found = plugins.load(tables, registry.Entry, registry.Option,
                         lambda g: [_EP("hostile-h", "plugmod_hostile:X", group)] if g == group
                         else [])
    assert time.perf_counter() - t0 < 5
    assert capsys.readouterr().out == ""  # nothing reached standard output
    if words is None:
        assert not found.problems and "hostile-h" in tables["heuristic"]
    else:
        (problem,) = found.problems
        assert str(problem) == ("plugin bench-hostile: heuristic_bench.heuristics entry point "
                                f"'hostile-h' ignored: {words}")
        assert "hostile-h" not in tables["heuristic"]
    import signal

    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)  # no timer left running


def _bench(root: Path, mode: str, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(ROOT)]),
           "PLUG_MODE": mode, plugins.DEADLINE_ENV: "1"}
    env.pop(plugins.DISABLE_ENV, None)
    return subprocess.run([sys.executable, "-m", "bench", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def installed_hostile(tmp_path):
    (tmp_path / "plugmod_hostile.py").write_text(HOSTILE_IMPORT)
    info = tmp_path / "bench_hostile-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: bench-hostile\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[heuristic_bench.heuristics]\n"
                                           "hostile-h = plugmod_hostile:X\n")
    return tmp_path


@pytest.mark.parametrize("args", [["--help"], ["--version"], []])
def test_help_and_version_load_no_plugin(args, installed_hostile):
    res = _bench(installed_hostile, "loop", *args)  # a plugin that never returns, never loaded
    assert res.returncode == 0 and res.stderr == "", res.stderr
    assert ("bench " if args == ["--version"] else "Commands:\n") in res.stdout


def test_a_group_named_alone_prints_its_help(capsys):
    code, out, err = run_cli(capsys, "suite")
    assert code == 0 and err == "" and out.startswith("Usage: bench suite [OPTIONS] COMMAND")
    assert "\nCommands:\n" in out


@pytest.mark.slow
def test_a_printing_plugin_leaves_json_clean(installed_hostile):
    res = _bench(installed_hostile, "print", "solve", "puzzle8", "--scramble", "U L",
                 "--heuristic", "manhattan", "--solver", "astar", "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout)["length"] == 2
    assert res.stderr.strip() == (
        "warning: plugin bench-hostile: heuristic_bench.heuristics entry point 'hostile-h' "
        "ignored: importing plugmod_hostile:X wrote 20 characters to standard output ('hello "
        "from a plugin'); a declaration module must not print")
    res = _bench(installed_hostile, "exit", "list", "solvers")
    assert res.returncode == 0 and "astar" in res.stdout
    assert "called sys.exit(3)" in res.stderr


# --------------------------------------------------------------------------- counts and names
@pytest.mark.parametrize("args,words", [
    (["--tries", "99999999999999999999"], "'--tries': 99999999999999999999 is not in the range "
                                          "1<=x<=10000"),
    (["--tries", "0"], "'--tries'"),
    (["--room-steps", "10000001"], "'--room-steps'"),
])
def test_sokoban_generator_counts_are_capped(args, words, capsys):
    t0 = time.perf_counter()
    code, _, err = run_cli(capsys, "scramble", "sokoban", "--count", "1", *args)
    one_line_error(code, err, words)
    assert time.perf_counter() - t0 < 5


def test_level_options_are_capped_in_the_api():
    from puzzles.sokoban_levels import LevelOptions

    with pytest.raises(InputError, match=r"^--tries: must be at most 10000, got 10001$"):
        dataclasses.replace(LevelOptions(), tries=10_001).checked()
    assert LevelOptions(tries=10_000).checked().tries == 10_000


def test_suite_show_checks_and_spells_out_its_profile(capsys):
    code, _, err = run_cli(capsys, "suite", "show", "puzzle8", "--profile", "nope")
    one_line_error(code, err, "error: --profile: suite puzzle8 has no profile 'nope'; known: "
                              "default, quick")
    code, out, err = run_cli(capsys, "suite", "show", "puzzle8", "--profile", "quick")
    from suites.schema import load_suite

    quick = load_suite("puzzle8").profiles["quick"]
    assert code == 0, err
    tail = out[out.index("profile quick runs:"):]
    assert f"configurations: {', '.join(quick.configs or ())}" in tail
    assert f"(the first {quick.limit} instances of each)" in tail


# --------------------------------------------------------------------------- model folders
@pytest.mark.parametrize("config,words", [
    ("[1]", "config.json is not a JSON object"),
    ('{"evaluation": [{"set": "x"}]}', "evaluation is not a list of results with a solved share"),
    ('{"evaluation": 5}', "evaluation is not a list"),
    ("[" * 100_000, "config.json is not readable JSON (RecursionError)"),
], ids=["list", "no-share", "number", "deep"])
def test_models_lists_a_damaged_model_folder_as_an_error(config, words, tmp_path, monkeypatch,
                                                         capsys):
    import shutil

    from learning import model_store

    folder = tmp_path / "bad"
    folder.mkdir()
    shutil.copy(model_store.SHIPPED_DIR / "puzzle8" / "model.pt", folder / "model.pt")
    (folder / "config.json").write_text(config)
    monkeypatch.setattr(model_store, "known_models", lambda: {"bad": folder / "model.pt"})
    code, out, err = run_cli(capsys, "models")
    assert code == 0 and "Traceback" not in err, err
    (line,) = [x for x in out.splitlines() if x.startswith("bad ")]
    assert line.split(None, 1)[1] == f"error: {folder}: " + line.split(f"{folder}: ", 1)[1]
    assert words in line


@pytest.mark.parametrize("tree,words", [
    ({"goals": [[300] * 9]}, "OverflowError"),
    ({"paths": [[1, 2]], "goals": [[1]], "parent": 5}, "TypeError"),
    ("[" * 100_000, "RecursionError"),
], ids=["overflow", "parent", "deep"])
def test_damaged_goal_trees_are_one_line(tree, words, tmp_path):
    from learning.multigoal import TREE_FILE, GoalTree

    base = {"puzzle": "puzzle8", "layout": None, "children": 1, "height": 1, "step": 1,
            "goals": [[1, 2, 3, 4, 5, 6, 7, 8, 0]], "parent": [-1], "paths": [[]]}
    text = tree if isinstance(tree, str) else json.dumps({**base, **tree})
    (tmp_path / TREE_FILE).write_text(text)
    with pytest.raises(InputError, match=rf"is damaged \({words}\)$"):
        GoalTree.load(tmp_path)


def test_a_suite_depth_of_true_is_refused(tmp_path, capsys):
    path = tmp_path / "b.toml"
    path.write_text(SUITE_HEAD + '[[instances]]\nname = "s"\nsource = "scramble"\n'
                    "depth = [true]\ncount = 1\n" + CONFIG)
    code, _, err = run_cli(capsys, "suite", "show", str(path))
    one_line_error(code, err, "b.toml: instances[0].depth: expected non-negative integers")


def test_a_text_file_is_not_a_deepcubea_state_dict(tmp_path, capsys):
    text = tmp_path / "model_state_dict.pt"
    text.write_text(PASSWD)
    code, _, err = run_cli(capsys, "train", "import-deepcubea", "cube3", str(text), "--out",
                           str(tmp_path / "out" / "model.pt"))
    one_line_error(code, err, f"error: STATE_DICT: {text} is not a readable torch state dict "
                              "(its bytes are not a torch.save file)")
    assert not (tmp_path / "out" / "model.pt").exists()
