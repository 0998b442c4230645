"""``bench view`` in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``) driven by Selenium through ``/usr/bin/chromedriver``.

Each test opens the page, steps through a replay and checks the drawn state (the drawing's
``data-pos`` / ``data-value`` attributes) after every step against the puzzle's own state
application. Skipped when no browser is installed (``nox -s tests`` installs it where it can).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

CHROMEDRIVER = Path(os.environ.get("BENCH_CHROMEDRIVER", "/usr/bin/chromedriver"))
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser"))
                 if p), None)
if not CHROMEDRIVER.is_file() or CHROMIUM is None:
    pytest.skip("no headless browser: apt-get install chromium chromium-driver (Debian) gives "
                "/usr/bin/chromium and /usr/bin/chromedriver", allow_module_level=True)
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed "
                                "(pip install -e '.[dev]')")

from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.common.keys import Keys  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402
from view_runs import make_run  # noqa: E402

from bench.commands.solve import Solved, solve_state  # noqa: E402
from bench.view import server  # noqa: E402
from bench.view.sources import RunSource, SolveSource  # noqa: E402
from core import registry  # noqa: E402
from core.limits import Limits  # noqa: E402

WAIT_S = 60  # an upper bound for the page to answer on a loaded machine, not a timing check

SHOWN = """
const board = document.getElementById("board");
const cells = [...board.querySelectorAll("[data-role=state] [data-pos]")];
const info = [...document.querySelectorAll("#step-info tr")].map(
  (tr) => [...tr.cells].map((td) => td.textContent));
return [board.dataset.key || null, Number(board.dataset.step),
        cells.map((e) => [Number(e.dataset.pos), Number(e.dataset.value)]), info];
"""


@pytest.fixture(scope="module")
def driver() -> Iterator[Any]:
    os.environ.setdefault("SE_OFFLINE", "true")  # never let Selenium Manager fetch a driver
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000"):
        options.add_argument(arg)
    try:
        d = webdriver.Chrome(service=webdriver.ChromeService(str(CHROMEDRIVER)), options=options)
    except WebDriverException as exc:
        pytest.skip(f"headless Chromium does not start: {(exc.msg or str(exc)).splitlines()[0]}")
    d.set_page_load_timeout(WAIT_S)
    yield d
    d.quit()


@contextmanager
def served(source: Any, figures: Path | None = None) -> Iterator[str]:
    srv = server.ViewServer(server.create_app(source, figures)).start()
    try:
        yield srv.url
    finally:
        srv.stop()


def open_page(driver: Any, url: str) -> None:
    driver.get(url)
    WebDriverWait(driver, WAIT_S).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1")


def shown(driver: Any, dim: int) -> tuple[str | None, int, np.ndarray, list[list[str]]]:
    """The replay's key, its step, the state the drawing shows and the step's values table."""
    key, step, cells, info = driver.execute_script(SHOWN)
    state = np.full(dim, -1, dtype=np.int64)
    for pos, value in cells:
        assert state[pos] == -1, f"position {pos} drawn twice"
        state[pos] = value
    assert (state >= 0).all(), "a position is not drawn"
    return key, step, state, info


def wait_shown(driver: Any, dim: int, until: Any) -> None:
    """Wait until the drawn replay satisfies ``until``; a board still empty while the replay
    loads (``shown`` asserting) counts as not yet."""
    WebDriverWait(driver, WAIT_S, ignored_exceptions=(AssertionError,)).until(
        lambda d: until(shown(d, dim)))


def click(driver: Any, element_id: str) -> None:
    driver.find_element(By.ID, element_id).click()


def step_through(driver: Any, puzzle: Any, start: np.ndarray, actions: list[int],
                 h: Any | None = None, exact: bool = False) -> None:
    """Step forward through the whole replay, checking each drawn state (and the h and the true
    distance the page prints) against the puzzle's own states; then jump around."""
    L = len(actions)
    for i in range(L + 1):
        _, step, state, info = shown(driver, puzzle.state_dim)
        expected = puzzle.apply_path(start, actions[:i])
        assert step == i and np.array_equal(state, expected), f"step {i}"
        if h is not None:
            assert float(info[0][1]) == pytest.approx(float(h(expected[None, :])[0]), abs=1e-3)
        if exact:
            assert info[-1] == ["true distance", str(L - i)]
        click(driver, "next")
    assert shown(driver, puzzle.state_dim)[1] == L  # the last state stays
    click(driver, "first")
    assert shown(driver, puzzle.state_dim)[1] == 0
    chips = driver.find_elements(By.CSS_SELECTOR, "#moves button")
    assert [c.text for c in chips] == [puzzle.action_names[a] for a in actions]
    j = min(2, L)
    chips[j - 1].click()
    _, step, state, _ = shown(driver, puzzle.state_dim)
    assert step == j and np.array_equal(state, puzzle.apply_path(start, actions[:j]))
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.END)
    _, step, state, _ = shown(driver, puzzle.state_dim)
    assert step == L and puzzle.is_goal(state[None, :].astype(puzzle.dtype))[0]
    driver.find_element(By.TAG_NAME, "body").send_keys(Keys.ARROW_LEFT)
    assert shown(driver, puzzle.state_dim)[1] == L - 1
    driver.execute_script("const s = document.getElementById('slider'); s.value = '1';"
                          "s.dispatchEvent(new Event('input'));")
    assert shown(driver, puzzle.state_dim)[1] == 1
    driver.execute_script("document.getElementById('speed').value = '16';")
    click(driver, "play")
    wait_shown(driver, puzzle.state_dim, lambda s: s[1] == L)


def test_cube3_replay_steps_through_the_puzzles_states(driver):
    p = registry.get_puzzle("cube3")
    args = {"corners": "corner-perm", "edges": ((0, 1, 2), (8, 9, 10))}  # a small Korf PDB
    h = registry.get_heuristic("pdb-korf", p, **args)
    start = p.from_moves(p.parse_moves("R U F' L"))
    result = registry.get_solver("ida").run(p, h, start, Limits(time_s=120))
    assert result.status == "solved" and result.length == 4
    solved = Solved(p, start, h, "pdb-korf", args, "ida", {}, result)
    with served(SolveSource(solved, "cube3 test")) as url:
        open_page(driver, url)
        assert shown(driver, p.state_dim)[0] == "solve"
        plots = driver.find_elements(By.CSS_SELECTOR, "#plots .plot")
        assert [e.get_attribute("data-heuristic") for e in plots] == ["pdb-korf"]
        # the cube's two isometric views and the net are drawn
        assert len(driver.find_elements(By.CSS_SELECTOR, "#board svg")) == 3
        step_through(driver, p, start, list(result.actions), h, exact=True)


def test_puzzle15_replay_steps_through_the_puzzles_states(driver):
    solved = solve_state("puzzle15", None, "UULLDRDRUL", None, "manhattan", "ida", None, None,
                         None, {})
    assert solved.result.status == "solved"
    with served(SolveSource(solved, "puzzle15 test", ("linear-conflict",))) as url:
        open_page(driver, url)
        plots = driver.find_elements(By.CSS_SELECTOR, "#plots .plot")
        assert [e.get_attribute("data-heuristic") for e in plots] == ["manhattan",
                                                                       "linear-conflict"]
        step_through(driver, solved.puzzle, solved.state, list(solved.result.actions),
                     solved.heuristic, exact=True)


@pytest.mark.parametrize("puzzle, state, moves, heuristic, solver", [
    ("cube2", None, "R U' F R'", "pdb-cube2", "ida"),
    ("lightsout5", None, "r0c0 r2c3 r4c1", "lights-on", "ida"),
    ("sokoban", "#######/#@$ .##/#######", None, "sokoban-push", "astar"),
])
def test_every_board_kind_draws_the_puzzles_states(driver, puzzle, state, moves, heuristic,
                                                   solver):
    solved = solve_state(puzzle, state, moves, None, heuristic, solver, None, None, None, {})
    p, actions = solved.puzzle, list(solved.result.actions)
    with served(SolveSource(solved, "test")) as url:
        open_page(driver, url)
        for i in range(len(actions) + 1):
            _, step, drawn, _ = shown(driver, p.state_dim)
            assert step == i and np.array_equal(drawn, p.apply_path(solved.state, actions[:i]))
            click(driver, "next")


def test_run_page_rows_sort_and_replays(driver, tmp_path):
    run_dir = make_run(tmp_path)
    source = RunSource(run_dir)
    p = registry.get_puzzle("puzzle15")
    with served(source, run_dir) as url:
        open_page(driver, url)
        assert driver.find_element(By.ID, "replay").get_attribute("hidden") is not None
        summary = driver.find_elements(By.CSS_SELECTOR, "#summary .set-summary tbody tr")
        assert len(summary) == 4
        # one summary per instance set, headed by it, with the legend of its columns
        titles = [h.text for h in driver.find_elements(By.CSS_SELECTOR, "#summary h3")]
        assert titles == ["scramble (2 instances)"]
        legend = driver.find_element(By.CSS_SELECTOR, "#summary pre.legend").text
        assert "% optimal: of the instances with a reference optimal length" in legend
        # sort the rows by length: numbers ascending, failures (n/a) last
        header = [th for th in driver.find_elements(By.CSS_SELECTOR, "#rows th")
                  if th.text == "length"][0]
        header.click()
        col = [th.text for th in driver.find_elements(By.CSS_SELECTOR, "#rows th")].index("length")
        cells = [tr.find_elements(By.TAG_NAME, "td")[col].text
                 for tr in driver.find_elements(By.CSS_SELECTOR, "#rows tbody tr")]
        numbers = [int(c) for c in cells if c != "n/a"]
        assert numbers == sorted(numbers) and cells[len(numbers):] == ["n/a"] * 2
        # a row's replay
        key = "scramble/d14-0/lvi"
        driver.find_element(By.CSS_SELECTOR, f"#rows button[data-key='{key}']").click()
        wait_shown(driver, p.state_dim, lambda s: s[0] == key)
        row = source.rows[key]
        start = np.array([int(v) for v in row["state"].split()], dtype=p.dtype)
        actions = p.parse_moves(row["actions"])
        for i in range(3):
            _, step, state, _ = shown(driver, p.state_dim)
            assert step == i and np.array_equal(state, p.apply_path(start, actions[:i]))
            click(driver, "next")
        plots = driver.find_elements(By.CSS_SELECTOR, "#plots .plot")
        assert [e.get_attribute("data-heuristic") for e in plots] == ["manhattan",
                                                                       "linear-conflict"]
        # the same instance under another configuration
        other = "scramble/d14-0/manhattan-ida"
        driver.find_element(By.XPATH, "//div[@id='siblings']/button[starts-with(., "
                                      "'manhattan-ida')]").click()
        wait_shown(driver, p.state_dim, lambda s: s[0] == other)
        _, step, state, info = shown(driver, p.state_dim)
        assert step == 0 and np.array_equal(state, start)
        assert info[-1] == ["true distance", "14"]
        assert driver.current_url.endswith("#replay=" + other.replace("/", "%2F"))
