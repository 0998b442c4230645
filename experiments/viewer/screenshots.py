"""The viewer's screenshots in ``results/viewer/``, taken with headless Chromium (Debian's
``chromium`` and ``chromium-driver``) through Selenium, from the committed runs and from single searches.

    python -m experiments.viewer.screenshots [OUT]      # default: results/viewer

Needs the cube3 Korf tables (``bench pdb build cube3 pdb-korf``) and the 15-puzzle's 6-6-3
tables (``bench pdb build puzzle15 pdb-663``) in the cache, and the shipped models.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from bench.commands.solve import solve_state, summary_text
from bench.view import server
from bench.view.sources import RunSource, SolveSource

ROOT = Path(__file__).resolve().parents[2]

RESULTS = Path("results")  # relative to the checkout (the page shows the path)


def solved(puzzle, state, moves, heuristic, solver, compare=(), **options):
    s = solve_state(puzzle, state, moves, None, heuristic, solver, None, None, None, options)
    return SolveSource(s, summary_text(s.puzzle, s.state, s.result), compare)


#: (file, source, replay key or None, steps to advance, element to capture)
SHOTS = [
    ("cube3.png", lambda: RunSource(RESULTS / "suite-cube3"),
     "scramble-short/d12-0/pdb-korf-ida", 4, "replay"),
    ("cube2.png", lambda: RunSource(RESULTS / "suite-cube2"),
     "scramble/d12-2/davi-greedy", 9, "replay"),
    ("puzzle15.png", lambda: RunSource(RESULTS / "classic15"), "deepcubea/0/davi", 20, "replay"),
    ("lightsout7.png", lambda: solved("lightsout7", None,
                                      "r0c0 r1c4 r2c2 r3c6 r4c1 r5c5 r6c3 r2c5 r0c6 r6c6",
                                      "lights-on", "ida", ("davi",)), None, 3, "replay"),
    ("sokoban.png", lambda: solved("sokoban", "##########/#  . #####/#  $ #####/# $@ #####/"
                                   "#.   #####/##########", None, "sokoban-matching", "astar",
                                   ("sokoban-push",)), None, 2, "replay"),
    ("run.png", lambda: RunSource(RESULTS / "classic15"), None, 0, None),
]


def main(out: Path) -> None:
    import os

    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    os.chdir(ROOT)
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1280,1000", "--hide-scrollbars"):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=webdriver.ChromeService("/usr/bin/chromedriver"),
                              options=options)
    try:
        for name, make, key, steps, element in SHOTS:
            source = make()
            figures = getattr(source, "run_dir", None)
            srv = server.ViewServer(server.create_app(source, figures)).start()
            try:
                url = srv.url + (f"#replay={key}" if key else "")
                driver.get(url)
                WebDriverWait(driver, 300).until(
                    lambda d: d.execute_script("return document.body.dataset.ready") == "1")
                for _ in range(steps):
                    driver.find_element(By.ID, "next").click()
                time.sleep(0.3)  # let images and fonts settle
                if element:
                    driver.find_element(By.ID, element).screenshot(str(out / name))
                else:
                    driver.save_screenshot(str(out / name))
                print(f"wrote {out / name}")
            finally:
                srv.stop()
    finally:
        driver.quit()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / RESULTS / "viewer")
