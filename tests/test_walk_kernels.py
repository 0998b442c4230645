"""The compiled random walks (``learning._walk_kernels``) against the tensor loop they replace
on the CPU: the same batches, bit for bit, on every puzzle family and walk rule; and the
trainer makes its batches in its own thread when no core is free for another."""

from __future__ import annotations

import pytest
import torch

from core.registry import get_puzzle
from learning.walks import domain_for

FIELDS = ("states", "depths", "is_goal", "children", "valid", "child_goal")


def _both(d, make):
    """``make()`` by the compiled walks, then by the tensor loop."""
    assert d.compiled_walks
    a = make()
    d.compiled_walks = False
    try:
        b = make()
    finally:
        d.compiled_walks = True
    return a, b


@pytest.mark.nojit
@pytest.mark.parametrize("name,k_max", [("cube2", 14), ("cube3", 30), ("cube3-htm", 25),
                                        ("puzzle8", 40), ("puzzle15", 120)])
@pytest.mark.parametrize("canonical", [True, False])
@pytest.mark.parametrize("backtrack", [False, True])
def test_compiled_batches_equal_tensor_batches(name, k_max, canonical, backtrack):
    d = domain_for(get_puzzle(name), "cpu", canonical=canonical)
    a, b = _both(d, lambda: d.batch(4, 11, 300, k_max, True, backtrack))
    for f in FIELDS:
        assert torch.equal(getattr(a, f), getattr(b, f)), f
    # the walks are real: most end away from the goal, and depth 1 walks one move from it
    assert (~a.is_goal).float().mean() > 0.5
    (la, lab_a), (lb, lab_b) = _both(d, lambda: d.labelled_walks(
        torch.full((50,), 1), torch.Generator().manual_seed(3), backtrack))
    assert torch.equal(la, lb) and torch.equal(lab_a, lab_b)
    p = get_puzzle(name)
    goal = torch.as_tensor(p.goal())
    back = p.apply(la[:10].numpy(), lab_a[:10].numpy())
    assert torch.equal(torch.as_tensor(back), goal.expand(10, -1))


@pytest.mark.nojit
def test_walks_of_no_move_and_empty_batches():
    d = domain_for(get_puzzle("cube3"), "cpu", canonical=True)
    a, b = _both(d, lambda: d.labelled_walks(torch.tensor([0, 3, 0, 1]),
                                             torch.Generator().manual_seed(0)))
    assert torch.equal(a[0], b[0])
    assert d.is_goal(a[0]).tolist() == [True, False, True, False]
    a, b = _both(d, lambda: d.walks(torch.zeros(0, dtype=torch.long),
                                    torch.Generator().manual_seed(0)))
    assert a.shape == b.shape == (0, 54)


def test_trainer_makes_batches_inline_without_a_spare_core(tmp_path, monkeypatch):
    from learning import trainer as tr
    from learning.data import BatchProducer
    from learning.train_config import TrainConfig

    t = tr.Trainer(TrainConfig(puzzle="cube2", preset="tiny", batch=8, k_max=5, device="cpu"),
                   tmp_path / "run", progress=False)
    monkeypatch.setattr(tr, "spare_core", lambda: False)
    p = t._producer()
    assert isinstance(p, tr._Inline)
    p.close()
    monkeypatch.setattr(tr, "spare_core", lambda: True)
    p = t._producer()
    try:
        assert isinstance(p, BatchProducer)
        # both give the run's batch of the same iteration
        a, b = p.get(), tr._Inline(t, t.iteration).get()
        assert torch.equal(a.states, b.states)
    finally:
        p.close()
