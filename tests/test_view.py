"""``bench view``: the replay JSON against the puzzles' own moves, heuristics and exact distances,
run folders (rows.jsonl and results.csv), the web application and the command line."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import numpy as np
import pytest
from cli_run import run_cli
from view_runs import make_run

from bench.view import server
from bench.view.replay import Curve, ReplayError, path_states, replay
from bench.view.sources import HeuristicCache, RunSource, SolveSource
from core import registry
from core.errors import InputError
from suites.reference import bfs_distances, optimal_lengths


def inverse_path(puzzle, scramble: str) -> tuple[np.ndarray, list[int]]:
    """The state a scramble makes from the goal and the path that undoes it."""
    moves = puzzle.parse_moves(scramble)
    start = puzzle.from_moves(moves)
    return start, [puzzle.inverse_action(a) for a in reversed(moves)]


# --------------------------------------------------------------------------- states along a path
@pytest.mark.parametrize("name, scramble", [
    ("cube3", "R U F' D L' B"), ("cube3-htm", "R2 U F' D2"), ("cube2", "R U' F R'"),
    ("puzzle15", "UULLDRDR"), ("puzzle8", "ULDRUL"), ("lightsout7", "r0c0 r3c3 r6c5"),
])
def test_states_along_a_path_are_the_puzzles_own(name, scramble):
    p = registry.get_puzzle(name)
    moves = p.parse_moves(scramble)
    start, actions = inverse_path(p, scramble)
    states = path_states(p, start, actions)
    assert states.shape == (len(actions) + 1, p.state_dim)
    for i in range(len(actions) + 1):
        # undoing i moves of the scramble leaves the state its first n - i moves make
        assert np.array_equal(states[i], p.from_moves(moves[:len(moves) - i]))
    assert p.is_goal(states[-1:])[0]


def test_an_illegal_move_is_a_replay_error_naming_it():
    p = registry.get_puzzle("puzzle8")
    with pytest.raises(ReplayError, match=r"move 3 \(D\) cannot be made"):
        path_states(p, p.goal(), p.parse_moves("UDD"))


@pytest.mark.parametrize("name, scramble, heuristics", [
    ("puzzle8", "ULDLURDRULL", ("manhattan", "linear-conflict")),
    ("cube2", "R U' F R' U F'", ("pdb-cube2",)),
    ("lightsout4", "r0c0 r2c3 r3c1", ("lights-on",)),
])
def test_replay_values_against_independent_truth(name, scramble, heuristics):
    p = registry.get_puzzle(name)
    start, actions = inverse_path(p, scramble)
    curves = [Curve(h, h, registry.get_heuristic(h, p), own=(i == 0))
              for i, h in enumerate(heuristics)]
    out = replay(p, start, actions, curves, key="k", title="t")
    states = np.array(out["states"], dtype=p.dtype)
    moves = p.parse_moves(scramble)
    for i, s in enumerate(states):
        assert np.array_equal(s, p.from_moves(moves[:len(moves) - i]))
    assert out["moves"] == [p.action_names[a] for a in actions]
    assert out["reaches_goal"] and out["key"] == "k" and out["board"]["kind"] in (
        "tiles", "cube", "lights")
    # exact distances from the puzzle's table / GF(2), checked by a breadth-first search
    truth = bfs_distances(p, states).tolist()
    assert out["distance"]["values"] == truth and "exact" in out["distance"]["source"]
    for curve, c in zip(out["heuristics"], curves, strict=True):
        one_by_one = [float(c.heuristic(s[None, :])[0]) for s in states]
        assert curve["values"] == pytest.approx(one_by_one)
        assert curve["overestimates"] == sum(h > d for h, d in zip(one_by_one, truth, strict=True))
        assert curve["own"] == (c is curves[0]) and curve["admissible"]
    json.dumps(out, allow_nan=False)  # strict JSON


def test_remaining_distance_on_an_optimal_path_and_elsewhere():
    p = registry.get_puzzle("puzzle15")
    start, actions = inverse_path(p, "UULLDRDRUL")
    h = Curve("manhattan", "manhattan", registry.get_heuristic("manhattan", p))
    L = len(actions)
    proved = replay(p, start, actions, [h], optimal=L, path_optimal="test")
    assert proved["distance"]["values"] == [L - i for i in range(L + 1)]
    opt = int(optimal_lengths(p, start[None, :], "ida:manhattan")[0])
    unproved = replay(p, start, actions, [h], optimal=opt)
    assert unproved["distance"]["values"] == [opt] + [None] * (L - 1) + [0]
    assert unproved["heuristics"][0]["overestimates"] == 0  # manhattan is admissible
    partial = replay(p, start, actions[:3], [h], optimal=opt)
    assert not partial["reaches_goal"]
    assert partial["distance"]["values"] == [opt, None, None, None]
    with pytest.raises(ReplayError, match="does not reach the goal"):
        replay(p, start, actions[:3], [h], require_goal=True)


def test_sokoban_board_and_dead_states_are_null():
    p = registry.get_puzzle("sokoban")
    level = "######/#@$.#/######"
    start = p.parse(level)
    h = registry.get_heuristic("sokoban-push", p)
    out = replay(p, start, p.parse_moves("R"), [Curve("push", "sokoban-push", h)])
    assert out["board"] == {"kind": "sokoban", "size": 10}
    assert out["reaches_goal"] and out["states"][1] == p.apply_path(start, [3]).tolist()
    assert out["heuristics"][0]["values"] == [1, 0]
    dead = p.parse("#######/#@ .##/#  $ #/#######")  # a box pushed against the wall: dead
    values = replay(p, dead, [], [Curve("push", "sokoban-push", h)])["heuristics"][0]["values"]
    assert values == [None]


# --------------------------------------------------------------------------- run folders
@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    return make_run(tmp_path_factory.mktemp("view"))


@pytest.fixture(scope="module")
def source(run_dir) -> RunSource:
    return RunSource(run_dir)


def test_run_index(source):
    index = source.index()
    # one summary per instance set, as the console prints it (the run has one set)
    assert index["mode"] == "run" and [s["name"] for s in index["sets"]] == ["scramble"]
    summary = index["sets"][0]
    assert summary["header"][:2] == ["config", "n"] and summary["instances"] == 2
    configs = [r[0] for r in summary["rows"]]
    assert configs == ["manhattan-ida", "lc-greedy", "lvi", "manhattan-capped"]
    assert len(index["rows"]) == 8 and index["figures"] == []
    comparison = summary["comparison"]
    assert comparison["n"] == 0 or comparison["header"][0] == "config"
    assert "failures" not in comparison["header"]
    assert "% optimal: of the instances with a reference optimal length" in summary["legend"]
    assert "run: manhattan-ida" in index["reference_note"]
    json.dumps(index, allow_nan=False)


def test_run_replay_of_an_optimal_row(source):
    key = "scramble/d14-0/manhattan-ida"
    row = source.rows[key]
    p = registry.get_puzzle("puzzle15")
    start = np.array([int(v) for v in row["state"].split()], dtype=p.dtype)
    actions = p.parse_moves(row["actions"])
    out = source.replay(key)
    assert out["moves"] == row["actions"].split() and out["length"] == len(actions)
    for i, s in enumerate(out["states"]):
        assert s == p.apply_path(start, actions[:i]).tolist()
    names = [c["name"] for c in out["heuristics"]]
    assert names == ["manhattan", "linear-conflict"]  # the row's own first; no zero
    assert [c["own"] for c in out["heuristics"]] == [True, False]
    assert "manhattan-capped" in out["heuristics"][0]["label"]
    for c in out["heuristics"]:
        h = registry.get_heuristic(c["name"], p)
        assert c["values"] == [float(h(np.array([s], dtype=p.dtype))[0]) for s in out["states"]]
    assert out["heuristics"][0]["values"][0] == row["h_start"] == out["h_start_recorded"]
    L = len(actions)
    assert out["distance"]["values"] == [L - i for i in range(L + 1)]
    assert "optimal" in out["distance"]["source"]
    assert {s["key"] for s in out["siblings"]} == {
        f"scramble/d14-0/{c}" for c in ("manhattan-ida", "lc-greedy", "lvi", "manhattan-capped")}


def test_run_replay_of_a_table_driven_row_and_a_failure(source):
    out = source.replay("scramble/d14-0/lvi")
    L = out["length"]
    assert L > 14 and out["reaches_goal"]
    assert out["distance"]["values"] == [14] + [None] * (L - 1) + [0]  # optimum from manhattan-ida
    assert out["unavailable"][0] == {"label": "lvi", "reason": "the solver uses no heuristic"}
    assert [c["own"] for c in out["heuristics"]] == [False, False]
    failed = source.replay("scramble/d14-1/manhattan-capped")
    assert failed["status"] == "node-limit" and failed["moves"] == []
    assert len(failed["states"]) == 1 and not failed["reaches_goal"]
    with pytest.raises(KeyError):
        source.replay("scramble/nope/lvi")


def test_results_csv_of_a_committed_folder_gives_the_same_replays(run_dir, source, tmp_path):
    from bench import runner

    runner.derive_tables(run_dir)
    copy = tmp_path / "committed"
    copy.mkdir()
    shutil.copy(run_dir / "results.csv", copy / "results.csv")
    (copy / "excess.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    other = RunSource(copy)
    assert other.figures == ["excess.png"]
    assert other.index()["sets"] == source.index()["sets"]
    for key in ("scramble/d14-1/lc-greedy", "scramble/d14-1/lvi"):
        a, b = source.replay(key), other.replay(key)
        assert a["states"] == b["states"] and a["heuristics"] == b["heuristics"]
        assert a["distance"] == b["distance"]


def test_a_row_whose_path_does_not_replay_is_refused(run_dir, tmp_path):
    rows = [json.loads(line) for line in (run_dir / "rows.jsonl").read_text().splitlines()]
    bad = dict(rows[0], key="scramble/d14-0/broken", config="broken")
    bad["actions"] = " ".join(bad["actions"].split()[:-1])  # stops one move short
    bad["length"] -= 1
    (tmp_path / "rows.jsonl").write_text("\n".join(json.dumps(r) for r in rows + [bad]) + "\n")
    src = RunSource(tmp_path)
    with pytest.raises(ReplayError, match="does not reach the goal"):
        src.replay("scramble/d14-0/broken")
    client = server.create_app(src, tmp_path).test_client()
    response = client.get("/api/replay", query_string={"key": "scramble/d14-0/broken"})
    assert response.status_code == 422 and "does not reach the goal" in response.json["error"]


def test_heuristics_that_cannot_be_evaluated_say_why(monkeypatch, tmp_path):
    from bench.view import sources

    monkeypatch.setenv("BENCH_CACHE", str(tmp_path))
    monkeypatch.setattr(sources, "BUILD_ENTRIES", 0)
    cache = HeuristicCache()
    p = registry.get_puzzle("puzzle8")
    h, reason = cache.get(p, "pdb-full", {})
    assert h is None and reason == "pattern database not built (bench pdb build puzzle8 pdb-full)"
    h, reason = cache.get(p, "policy", {})
    assert h is None and "ranks moves" in reason
    h, reason = cache.get(p, "davi", {"model": str(tmp_path / "no-such-model")})
    assert h is None and reason.startswith("cannot load")
    assert cache.get(p, "manhattan", {})[0] is cache.get(p, "manhattan", {})[0]


# --------------------------------------------------------------------------- the application
def test_app_routes(source, run_dir):
    (run_dir / "nodes.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    src = RunSource(run_dir)
    client = server.create_app(src, run_dir).test_client()
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data
    for asset in ("viewer.js", "draw.js", "plot.js", "viewer.css"):
        assert client.get(f"/static/{asset}").status_code == 200
    index = client.get("/api/index")
    assert index.status_code == 200 and index.json["title"] == run_dir.name
    one = client.get("/api/replay", query_string={"key": "scramble/d14-1/lc-greedy"})
    assert one.status_code == 200 and one.json == json.loads(json.dumps(
        src.replay("scramble/d14-1/lc-greedy")))
    assert client.get("/api/replay", query_string={"key": "x"}).status_code == 404
    assert client.get("/figures/nodes.png").data.startswith(b"\x89PNG")
    assert client.get("/figures/rows.jsonl").status_code == 404
    assert client.get("/figures/..%2Frows.jsonl").status_code == 404


def test_server_listens_on_loopback_and_reports_a_busy_port(source, run_dir):
    app = server.create_app(source, run_dir)
    srv = server.ViewServer(app).start()
    try:
        assert srv.url.startswith("http://127.0.0.1:") and srv.port > 0
        with urllib.request.urlopen(srv.url + "api/index", timeout=10) as response:
            assert json.load(response)["mode"] == "run"
        with pytest.raises(InputError, match=rf"--port: cannot listen on 127.0.0.1:{srv.port}"):
            server.ViewServer(app, port=srv.port)
    finally:
        srv.stop()
    with pytest.raises(InputError, match="--host"):
        server.ViewServer(app, host="no-such-host.invalid")
    assert server.is_loopback("127.0.0.1") and server.is_loopback("localhost")
    assert not server.is_loopback("0.0.0.0")


def test_serve_warns_off_loopback_and_opens_a_browser_only_with_a_display(source, monkeypatch):
    app = server.create_app(source, None)

    def interrupted(self):
        raise KeyboardInterrupt

    monkeypatch.setattr(server.ViewServer, "serve", interrupted)
    monkeypatch.setattr(server, "is_loopback", lambda host: False)
    opened: list[str] = []
    monkeypatch.setattr(server.webbrowser, "open", opened.append)

    class Now:
        def __init__(self, _delay, fn, args):
            self.fn, self.args = fn, args

        def start(self):
            self.fn(*self.args)

    monkeypatch.setattr(server.threading, "Timer", Now)
    lines: list[str] = []
    monkeypatch.setattr(server, "has_display", lambda: False)
    server.serve(app, "127.0.0.1", 0, True, lines.append)
    assert lines[0].startswith("warning: --host 127.0.0.1: the viewer listens on a network")
    assert lines[1].startswith("viewer at http://127.0.0.1:")
    assert lines[2].startswith("no display") and lines[-1] == "stopped" and not opened
    monkeypatch.setattr(server, "has_display", lambda: True)
    lines.clear()
    server.serve(app, "127.0.0.1", 0, True, lines.append)
    assert len(opened) == 1 and opened[0] == lines[1].split()[2]
    server.serve(app, "127.0.0.1", 0, False, lines.append)
    assert len(opened) == 1


# --------------------------------------------------------------------------- the command line


def test_view_solves_and_serves_the_replay(capsys, monkeypatch):
    served = {}
    monkeypatch.setattr(server, "serve", lambda app, host, port, browser, echo: served.update(
        app=app, host=host, port=port, browser=browser))
    code, out, err = run_cli(capsys, "view", "puzzle8", "--scramble", "ULDRUL", "--heuristic",
                             "manhattan", "--solver", "ida", "--compare", "linear-conflict",
                             "--no-browser", "--port", "0")
    assert code == 0, err
    assert "ida with manhattan: solved, length" in out
    assert served["host"] == "127.0.0.1" and served["browser"] is False
    client = served["app"].test_client()
    assert client.get("/api/index").json["open"] == "solve"
    r = client.get("/api/replay", query_string={"key": "solve"}).json
    p = registry.get_puzzle("puzzle8")
    start = p.from_moves(p.parse_moves("ULDRUL"))
    assert r["states"][0] == start.tolist() and r["reaches_goal"]
    assert [c["name"] for c in r["heuristics"]] == ["manhattan", "linear-conflict"]
    assert r["distance"]["values"] == bfs_distances(p, np.array(r["states"], dtype=p.dtype)).tolist()


def test_solve_source_of_a_solver_without_heuristic(capsys):
    from bench.commands.solve import solve_state

    solved = solve_state("lightsout5", "0100011100010000000000000", None, None, None, "gf2",
                         None, None, None, {})
    r = SolveSource(solved, "text").replay("solve")
    assert r["moves"] == ["r1c1"] and r["heuristics"] == []
    assert r["unavailable"] == [{"label": "gf2", "reason": "the solver uses no heuristic"}]
    assert r["distance"]["values"] == [1, 0]


@pytest.mark.parametrize("args, needle", [
    (["/no/such/run"], "error: RUN_DIR: /no/such/run is not a folder"),
    (["nosuchpuzzle"], "error: RUN_DIR|PUZZLE: 'nosuchpuzzle' is neither a folder nor a puzzle"),
    (["puzzle8", "--scramble", "UL"], "error: --heuristic: missing"),
    (["puzzle8", "--scramble", "UL", "--heuristic", "manhattan", "--compare", "nope"],
     "error: unknown heuristic 'nope'"),
    (["puzzle8", "--port", "70000"], "error: Invalid value for '--port'"),
])
def test_bad_input_is_one_line_exit_2(capsys, args, needle):
    code, _, err = run_cli(capsys, "view", *args)
    assert code == 2 and err.startswith(needle) and len(err.strip().splitlines()) == 1, err


def test_bad_input_with_a_run_folder(capsys, run_dir, tmp_path):
    for args, needle in [
        ([str(run_dir), "1 2 3"], "error: STATE: "),
        ([str(run_dir), "--heuristic", "manhattan"], "error: --heuristic: applies to"),
        ([str(run_dir), "--width", "4"], "error: --width: applies to"),
        ([str(run_dir), "--compare", "manhattan"], "error: --compare: applies to"),
        ([str(tmp_path)], f"error: RUN_DIR: {tmp_path} holds no run"),
    ]:
        code, _, err = run_cli(capsys, "view", *args)
        assert code == 2 and err.startswith(needle) and len(err.strip().splitlines()) == 1, err
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    try:
        port = busy.getsockname()[1]
        code, _, err = run_cli(capsys, "view", str(run_dir), "--port", str(port), "--no-browser")
        assert code == 2 and err.startswith(f"error: --port: cannot listen on 127.0.0.1:{port}")
    finally:
        busy.close()


def test_subprocess_exit_status_and_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "bench", "view", "/no/such/run"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip() == "error: RUN_DIR: /no/such/run is not a folder"
