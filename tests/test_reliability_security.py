"""Hostile inputs that try to read or write outside the folders they were given: the viewer's
figures and Host names, suite files' instance paths and run names."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from view_runs import make_run

from bench.view import server
from bench.view.sources import RunSource
from core.errors import InputError
from suites.schema import parse_suite

SECRET = "root:x:0:0:the secret line"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_run(tmp_path_factory.mktemp("sec"))


# --------------------------------------------------------------------------- the viewer
def test_viewer_never_serves_a_symlink_leading_out_of_the_run(run_dir, tmp_path):
    outside = tmp_path / "passwd"
    outside.write_text(SECRET)
    link = run_dir / "excess.png"
    link.symlink_to(outside)
    try:
        src = RunSource(run_dir)
        client = server.create_app(src, run_dir).test_client()
        assert "excess.png" not in src.index()["figures"]
        response = client.get("/figures/excess.png")
        assert response.status_code == 404 and SECRET.encode() not in response.data
        # even where the source lists it (a listing made before the link was placed)
        src.figures.append("excess.png")
        src._index["figures"] = src.figures
        response = client.get("/figures/excess.png")
        assert response.status_code == 404 and SECRET.encode() not in response.data
    finally:
        link.unlink()


@pytest.mark.parametrize("name", ["rows.jsonl", "results.csv", "run.json"])
def test_viewer_reads_no_run_file_through_a_link_out_of_the_folder(run_dir, tmp_path, name):
    # a folder whose run files are links to files elsewhere (here: a real run's, which would
    # read fine; and a secret): refused in one line, nothing of the target echoed
    folder = tmp_path / "linked"
    folder.mkdir()
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    for other in ("rows.jsonl", "results.csv"):
        if other != name and (run_dir / other).is_file():
            (folder / other).write_bytes((run_dir / other).read_bytes())
    target = run_dir / name if (run_dir / name).is_file() else secret
    (folder / name).symlink_to(target)
    with pytest.raises(InputError, match=f"{name} is a link that leads out of the folder") as info:
        RunSource(folder)
    assert SECRET not in str(info.value)
    (folder / name).unlink()
    (folder / name).symlink_to(secret)
    with pytest.raises(InputError) as info:
        RunSource(folder)
    assert SECRET not in str(info.value)
    # a folder in place of the file, and a dangling link: not regular files
    (folder / name).unlink()
    (folder / name).mkdir()
    with pytest.raises(InputError, match="is not a regular file"):
        RunSource(folder)
    (folder / name).rmdir()
    (folder / name).symlink_to(tmp_path / "absent")
    with pytest.raises(InputError, match="leads out of the folder"):
        RunSource(folder)


def test_viewer_reads_links_that_stay_inside_the_folder(run_dir, tmp_path):
    folder = tmp_path / "inside"
    folder.mkdir()
    (folder / "rows.data").write_bytes((run_dir / "rows.jsonl").read_bytes())
    (folder / "rows.jsonl").symlink_to("rows.data")
    assert RunSource(folder).index()["rows"]


def test_viewer_answers_only_its_own_host_names(run_dir):
    src = RunSource(run_dir)
    client = server.create_app(src, run_dir).test_client()
    for host in ("localhost", "localhost:8000", "127.0.0.1:5000", "[::1]:80"):
        assert client.get("/api/index", headers={"Host": host}).status_code == 200, host
    for host in ("evil.example", "evil.example:8000", "127.0.0.1.evil.example", "10.1.2.3"):
        response = client.get("/api/index", headers={"Host": host})
        assert response.status_code == 403, host
        assert b"rows" not in response.data


def test_viewer_answers_the_host_it_binds(run_dir):
    app = server.create_app(RunSource(run_dir), run_dir)
    srv = server.ViewServer(app, host="127.0.0.1")
    try:
        assert "127.0.0.1" in app.config["VIEW_HOSTS"]
        assert "evil.example" not in app.config["VIEW_HOSTS"]
    finally:
        srv.server.server_close()
    assert "0.0.0.0" in server.bound_names("0.0.0.0")
    assert server.host_name("[::1]:8080") == "::1" and server.host_name("Host:1") == "host"


# --------------------------------------------------------------------------- suite files
SUITE = """
[suite]
name = "{name}"
puzzle = "puzzle8"

[[instances]]
name = "f"
source = "file"
format = "states"
path = "{path}"

[[configs]]
name = "m"
heuristic = "manhattan"
solver = "ida"
"""


def _suite(tmp_path: Path, path: str, name: str = "hostile") -> Path:
    text = SUITE.format(name=name, path=path)
    suite_file = tmp_path / "suite" / "hostile.toml"
    suite_file.parent.mkdir(parents=True, exist_ok=True)
    suite_file.write_text(text)
    return suite_file


@pytest.mark.parametrize("where", ["absolute", "dotdot", "symlink"])
def test_suite_files_never_read_instance_files_outside_their_roots(where, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    if where == "absolute":
        path = str(secret)
    elif where == "dotdot":
        path = "../" * 12 + str(secret).lstrip("/")
    else:
        link = tmp_path / "suite" / "link.txt"
        link.parent.mkdir(parents=True)
        link.symlink_to(secret)
        path = "link.txt"
    suite_file = _suite(tmp_path, path)
    with pytest.raises(InputError) as info:
        parse_suite(suite_file, tomllib.loads(suite_file.read_text()))
    assert "outside the checkout" in str(info.value)
    assert "secret line" not in str(info.value)


def test_suite_file_errors_never_echo_the_instance_file(tmp_path, capsys):
    from cli_run import run_cli

    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "own.txt").write_text(SECRET + "\n")
    suite_file = _suite(tmp_path, "own.txt")  # the suite's own folder: allowed, but not states
    code, _, err = run_cli(capsys, "run", "suite", str(suite_file), "--out",
                           str(tmp_path / "run"), "--quiet", "--no-figures")
    assert code == 2 and "Traceback" not in err
    assert "own.txt:1" in err and "secret" not in err and "root" not in err, err


def test_suite_files_read_instance_files_beside_them(tmp_path):
    from suites.sources import load_instances

    (tmp_path / "suite").mkdir()
    (tmp_path / "suite" / "own.txt").write_text("a 2 1 2 3 4 5 6 7 0 8\n")
    suite_file = _suite(tmp_path, "own.txt")
    suite = parse_suite(suite_file, tomllib.loads(suite_file.read_text()))
    iset = load_instances(suite, "f")
    assert [i.id for i in iset.instances] == ["a"]


@pytest.mark.parametrize("name", ["../../etc", "a/b", "..", ".", "", "/abs", "x" * 101,
                                  "a\\b", "-flag"])
def test_suite_names_are_plain_names(name, tmp_path):
    suite_file = _suite(tmp_path, "korf100_15puzzle.txt", name=name.replace("\\", "\\\\"))
    with pytest.raises(InputError, match="suite.name.*not a plain name"):
        parse_suite(suite_file, tomllib.loads(suite_file.read_text()))


def test_profile_names_are_plain_names(tmp_path):
    suite_file = _suite(tmp_path, "korf100_15puzzle.txt")
    text = suite_file.read_text() + '\n[profiles."../../up"]\nlimit = 1\n'
    with pytest.raises(InputError, match="not a plain profile name"):
        parse_suite(suite_file, tomllib.loads(text))


def test_a_hostile_suite_name_writes_nothing_outside_runs(tmp_path, capsys, monkeypatch):
    from cli_run import run_cli

    monkeypatch.chdir(tmp_path)
    suite_file = _suite(tmp_path, "korf100_15puzzle.txt", name="../../escaped")
    code, _, err = run_cli(capsys, "run", "suite", str(suite_file), "--quiet", "--no-figures")
    assert code == 2 and "not a plain name" in err
    assert not list(tmp_path.parent.glob("escaped*")) and not (tmp_path / "runs").exists()
