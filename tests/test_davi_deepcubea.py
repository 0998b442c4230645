"""Import of DeepCubeA's published networks and the input adapters.

A state dict with DeepCubeA's layer names and shapes is built here with random weights (and
random batch-norm statistics); ``_their_forward`` evaluates it the way their ``ResnetModel``
does, on their input encoding. The imported checkpoint, fed our states, must give the same
values. With ../shared present, the states are DeepCubeA's own test states, converted by the
puzzle modules' ``from_deepcubea_*`` functions.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn import functional as F

from core.errors import InputError
from core.registry import get_puzzle
from heuristics.value_net import ValueNetHeuristic
from learning.adapters import to_deepcubea_cube3
from learning.deepcubea_import import convert, import_deepcubea, rename_state_dict
from puzzles.cube import from_deepcubea_cube3
from puzzles.npuzzle import convert_layout, from_deepcubea_tiles
from suites.importers.deepcubea import load_test_set


def _their_state_dict(state_dim: int, depth: int, h1: int = 24, res: int = 12, blocks: int = 2,
                      seed: int = 0) -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)

    def lin(prefix: str, n_in: int, n_out: int) -> dict[str, torch.Tensor]:
        return {f"{prefix}.weight": torch.randn(n_out, n_in, generator=g) / n_in ** 0.5,
                f"{prefix}.bias": torch.randn(n_out, generator=g) * 0.1}

    def bn(prefix: str, n: int) -> dict[str, torch.Tensor]:
        return {f"{prefix}.weight": 1 + 0.1 * torch.randn(n, generator=g),
                f"{prefix}.bias": 0.1 * torch.randn(n, generator=g),
                f"{prefix}.running_mean": 0.1 * torch.randn(n, generator=g),
                f"{prefix}.running_var": 0.5 + torch.rand(n, generator=g),
                f"{prefix}.num_batches_tracked": torch.tensor(1000)}

    sd = {**lin("fc1", state_dim * depth, h1), **bn("bn1", h1), **lin("fc2", h1, res), **bn("bn2", res)}
    for b in range(blocks):
        sd |= {**lin(f"blocks.{b}.0", res, res), **bn(f"blocks.{b}.1", res),
               **lin(f"blocks.{b}.2", res, res), **bn(f"blocks.{b}.3", res)}
    return {**sd, **lin("fc_out", res, 1)}


def _their_forward(sd: dict[str, torch.Tensor], their_input: np.ndarray, depth: int) -> np.ndarray:
    """Their ResnetModel in eval mode, written out layer by layer."""
    x = torch.as_tensor(np.asarray(their_input, dtype=np.int64))
    x = F.one_hot(x, depth).float().reshape(x.shape[0], -1)

    def lin(p, v):
        return v @ sd[f"{p}.weight"].T + sd[f"{p}.bias"]

    def bn(p, v):
        return ((v - sd[f"{p}.running_mean"]) / torch.sqrt(sd[f"{p}.running_var"] + 1e-5)
                * sd[f"{p}.weight"] + sd[f"{p}.bias"])

    x = F.relu(bn("bn1", lin("fc1", x)))
    x = F.relu(bn("bn2", lin("fc2", x)))
    b = 0
    while f"blocks.{b}.0.weight" in sd:
        y = F.relu(bn(f"blocks.{b}.1", lin(f"blocks.{b}.0", x)))
        y = bn(f"blocks.{b}.3", lin(f"blocks.{b}.2", y))
        x = F.relu(x + y)
        b += 1
    return lin("fc_out", x).squeeze(-1).numpy()


def _import(tmp_path, puzzle_name: str, sd: dict[str, torch.Tensor], prefix: str = "") -> ValueNetHeuristic:
    src = tmp_path / f"{puzzle_name}_model_state_dict.pt"
    torch.save({prefix + k: v for k, v in sd.items()}, src)
    out = import_deepcubea(src, puzzle_name, tmp_path / f"{puzzle_name}.pt")
    return ValueNetHeuristic(get_puzzle(puzzle_name), model=out)


def _check(h: ValueNetHeuristic, states: np.ndarray, expected: np.ndarray) -> None:
    got = h(states)
    expected = np.maximum(expected, 0.0)
    expected[h.puzzle.is_goal(states)] = 0.0
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)


def test_cube3_adapter_inverts_the_cube_mapping():
    p = get_puzzle("cube3")
    s = p.random_states(20, np.random.default_rng(0))
    their = to_deepcubea_cube3(s)
    assert their.shape == (20, 54) and their.min() >= 0 and their.max() <= 5
    # their sticker ids carry the colour as id // 9: colours * 9 are valid ids of the same colours
    np.testing.assert_array_equal(from_deepcubea_cube3(their * 9), s)
    # their goal: sticker k shows colour k // 9
    np.testing.assert_array_equal(to_deepcubea_cube3(p.goal())[0], np.arange(54) // 9)


def test_cube3_import_gives_their_values(tmp_path):
    p = get_puzzle("cube3")
    sd = _their_state_dict(54, 6)
    h = _import(tmp_path, "cube3", sd, prefix="module.")  # DataParallel's prefix is dropped
    states = np.concatenate([p.goal()[None], p.scramble(30, 12, np.random.default_rng(1))[0]])
    _check(h, states, _their_forward(sd, to_deepcubea_cube3(states), 6))
    assert h.info["input_adapter"] == "deepcubea-cube3" and h.ida_spec() is None


@pytest.mark.shared
def test_cube3_import_on_their_test_states(tmp_path, deepcubea):
    ts = load_test_set(deepcubea / "cube3" / "test_data_0.pkl")
    raw = ts.states[:100]
    sd = _their_state_dict(54, 6, seed=3)
    h = _import(tmp_path, "cube3", sd)
    # their network reads colour = sticker id // 9 at their positions; ours reads our states
    _check(h, from_deepcubea_cube3(raw), _their_forward(sd, raw // 9, 6))


@pytest.mark.shared
def test_puzzle15_import_on_their_test_states(tmp_path, deepcubea):
    ts = load_test_set(deepcubea / "puzzle15" / "test_data_0.pkl")
    raw = ts.states[:100]
    sd = _their_state_dict(16, 16, seed=4)
    h = _import(tmp_path, "puzzle15", sd)
    _check(h, from_deepcubea_tiles(raw), _their_forward(sd, raw, 16))


def test_tiles_import_and_goal_layout_conversion(tmp_path):
    sd = _their_state_dict(9, 9, seed=5)
    h = _import(tmp_path, "puzzle8", sd)
    p = get_puzzle("puzzle8")
    states = p.scramble(40, 15, np.random.default_rng(2))[0]
    expected = _their_forward(sd, states, 9)
    _check(h, states, expected)
    # the same network on the blank-first puzzle sees each state converted to its twin
    korf = get_puzzle("puzzle8", goal="blank-first")
    hk = ValueNetHeuristic(korf, model=tmp_path / "puzzle8.pt")
    twins = convert_layout(states, 3)
    np.testing.assert_allclose(hk(twins), h(states), rtol=1e-5, atol=1e-5)
    assert hk(korf.goal())[0] == 0.0


def test_a_tile_network_is_relative_to_their_goal_whatever_the_layout():
    """The recorded goal is the layout DeepCubeA's entry names (blank-last), also when the
    network is converted for a puzzle made with another layout."""
    sd = _their_state_dict(9, 9, seed=5)
    for layout in ("blank-last", "blank-first", "korf1982"):
        ckpt = convert(sd, get_puzzle("puzzle8", goal=layout))
        assert ckpt["goal"] == [1, 2, 3, 4, 5, 6, 7, 8, 0], layout


def test_lights_import_uses_their_one_hot_depth(tmp_path):
    sd = _their_state_dict(49, 6, seed=6)  # their Lights Out net one-hot encodes 0/1 with depth 6
    h = _import(tmp_path, "lightsout7", sd)
    p = get_puzzle("lightsout7")
    states = p.random_states(30, np.random.default_rng(3))
    _check(h, states, _their_forward(sd, states, 6))
    assert h.net.config.one_hot_depth == 6


def test_bad_state_dicts_are_refused(tmp_path):
    with pytest.raises(InputError, match="unexpected tensor 'conv1.weight'"):
        rename_state_dict({"conv1.weight": torch.zeros(1)})
    sd = _their_state_dict(9, 9)
    torch.save(sd, tmp_path / "p8.pt")
    with pytest.raises(InputError, match="no multiple"):
        import_deepcubea(tmp_path / "p8.pt", "puzzle15", tmp_path / "out.pt")
    with pytest.raises(InputError, match="no network for cube2"):
        import_deepcubea(tmp_path / "p8.pt", "cube2", tmp_path / "out.pt")
    (tmp_path / "junk.pt").write_bytes(b"junk")
    with pytest.raises(InputError, match="not a readable torch state dict"):
        import_deepcubea(tmp_path / "junk.pt", "puzzle8", tmp_path / "out.pt")


def test_malformed_state_dicts_are_one_line_errors(tmp_path):
    import os

    sd = _their_state_dict(9, 9)
    cases = {
        "not-tensor": {**sd, "fc1.weight": [1, 2, 3]},
        "one-dim": {**sd, "fc1.weight": torch.zeros(5)},
        "wrong-shape": {**sd, "fc2.weight": torch.zeros(3, 3)},
        "nan": {**sd, "fc_out.bias": torch.tensor([float("nan")])},
    }
    for name, bad in cases.items():
        torch.save(bad, tmp_path / f"{name}.pt")
        with pytest.raises(InputError, match="STATE_DICT"):
            import_deepcubea(tmp_path / f"{name}.pt", "puzzle8", tmp_path / "out.pt")
    os.mkfifo(tmp_path / "fifo.pt")
    with pytest.raises(InputError, match="not a regular file"):
        import_deepcubea(tmp_path / "fifo.pt", "puzzle8", tmp_path / "out.pt")
