"""Training rate of the ``deepxube`` package's DAVI pipeline on the Rubik's cube, for comparison.

What it measures
----------------
How many cube3 DAVI training states per second deepxube 0.3.2 achieves on this CPU. One state is
one Bellman target ``y = min_a (1 + J_target(child_a))`` (0 for the goal) with all 12 children
of the state evaluated by the target network, plus that state's share of one Adam step. The rate
is ``iterations * batch / seconds`` over whole deepxube update cycles, so it includes everything
deepxube does per update: its worker process generating random-walk states and expanding them,
its target-network process evaluating the children, the Bellman backups, the transfer of the data
back through shared memory, the Adam steps, and the per-update bookkeeping (spawning the
target-network process, saving the network, copying it to the target file, tensorboard scalars).

Everything is deepxube's own code, driven the way ``deepxube train`` drives it
(``deepxube/_train_cli.py`` and ``deepxube/trainers/utils/train_loop.py``): its ``cube3``
domain, its ``resnet_fc`` heuristic network, its ``graph_v`` pathfinding with one search
iteration and Bellman backup (``--search_itrs 1 --backup 1``, which is DAVI: the root is popped,
its 12 children are evaluated by the target network, the target is the Bellman backup of the
root), its updater ``UpdateHeurVRLKeepGoal`` with worker processes, and its ``TrainHeur.update_step``.
The only departures from ``deepxube train`` are that this script builds ``TrainHeur`` itself
(``train()`` would also redirect stdout to a log file and call ``torch.set_num_threads(8)``), sets
the training process to ``--threads`` torch threads, and times a warm-up update separately.

deepxube settings used (command-line equivalents)
-------------------------------------------------
    --domain cube3 --heur resnet_fc.336H_2B_bn --heur_type V --pathfind graph_v
    --search_itrs 1 --backup 1 --step_max 30 --batch_size B --up_itrs N --procs P
    --up_batch_size B --up_nnet_batch_size 20000 --rb 0 (no replay buffer) --up_lt inf

``resnet_fc.336H_2B_bn`` is deepxube's residual net: one-hot input (54 stickers x 6 colours =
324), Linear(324, 336), two residual blocks of two 336-unit layers with batch norm, Linear(336, 1):
565,153 parameters, within 0.1 % of the project's "small" preset (564,737). deepxube's net has
no separate first hidden layer (the project's has 324 -> 512 -> 256), so the width is chosen to
match the parameter count (and hence roughly the multiply-adds per state); ``--res-dim 256``
gives deepxube's net with the project's residual width instead (346,625 parameters + batch norm).

Set-up (a separate virtual environment; the CPU torch wheel must be installed first, or pip pulls
the CUDA build):

    python3 -m venv /tmp/deepxube-venv
    /tmp/deepxube-venv/bin/pip install torch==2.13.0
    /tmp/deepxube-venv/bin/pip install deepxube==0.3.2

Run (from anywhere; the script moves to a scratch directory before importing deepxube, because
deepxube imports every ``domains/``, ``heuristics/`` and ``pathfinding/`` module under the current
directory, and this project has a ``heuristics/`` package):

    nice -n 5 /tmp/deepxube-venv/bin/python tests/benchmarks/peers/deepxube_rate.py \\
        --iterations 10 --batch 10000 --threads 2

It prints deepxube's own progress lines on stderr and one line on stdout:

    deepxube cube3 davi: STATES_PER_S states/s (batch B, N iterations, params P, threads T)

It imports nothing from this project.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
import time


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--iterations", type=int, default=10,
                   help="timed training iterations (one deepxube update with up_itrs=N)")
    p.add_argument("--batch", type=int, default=10000, help="states per iteration (--batch_size)")
    p.add_argument("--threads", type=int, default=2, help="torch threads of the training process")
    p.add_argument("--procs", type=int, default=1,
                   help="deepxube data-generation worker processes (--procs)")
    p.add_argument("--res-dim", type=int, default=336, help="resnet_fc width (H)")
    p.add_argument("--blocks", type=int, default=2, help="resnet_fc residual blocks (B)")
    p.add_argument("--no-bn", action="store_true", help="resnet_fc without batch norm")
    p.add_argument("--step-max", type=int, default=30, help="longest random walk (--step_max)")
    p.add_argument("--nnet-batch", type=int, default=20000,
                   help="largest target-network batch (--up_nnet_batch_size)")
    p.add_argument("--warmup-iterations", type=int, default=1,
                   help="iterations of the untimed first update (0: no warm-up)")
    p.add_argument("--verbose", action="store_true", help="deepxube's verbose update output")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.iterations < 1 or args.batch < 1 or args.threads < 1 or args.procs < 1:
        raise SystemExit("--iterations, --batch, --threads and --procs must be positive")

    # deepxube imports modules from ./domains, ./heuristics and ./pathfinding at import time
    # (and its spawned workers inherit the directory): import it from an empty scratch directory.
    work = tempfile.mkdtemp(prefix="deepxube_rate_")
    old_cwd = os.getcwd()
    os.chdir(work)
    try:
        with contextlib.redirect_stdout(sys.stderr):  # deepxube's chatter; stdout keeps the result
            rate, params = run(args, work)
    finally:
        os.chdir(old_cwd)
        shutil.rmtree(work, ignore_errors=True)
    print(f"deepxube cube3 davi: {rate:.0f} states/s (batch {args.batch}, {args.iterations} "
          f"iterations, params {params}, threads {args.threads})", flush=True)
    return 0


def run(args: argparse.Namespace, work: str) -> tuple[float, int]:
    # importing deepxube registers its domains, heuristics, pathfinding and updaters
    import deepxube
    import torch
    from deepxube.base.trainer import TrainArgs
    from deepxube.base.updater import UpArgs, UpdateHeur
    from deepxube.factories.updater_factory import get_updater
    from deepxube.trainers.train_heur import TrainHeur
    from deepxube.utils.command_line_utils import get_domain_from_arg, get_heur_nnet_par_from_arg
    from torch.utils.tensorboard import SummaryWriter

    torch.set_num_threads(args.threads)
    device = torch.device("cpu")

    heur_arg = f"resnet_fc.{args.res_dim}H_{args.blocks}B" + ("" if args.no_bn else "_bn")
    domain, domain_name = get_domain_from_arg("cube3")
    heur_nnet_par = get_heur_nnet_par_from_arg(domain, domain_name, heur_arg, "V")[0]

    # the buffer and the updater are sized for the timed update; the warm-up update only runs
    # fewer of the same iterations (deepxube reads up_itrs in the main process at each update)
    up_args = UpArgs(args.procs, args.iterations, args.step_max, 1, ub_heur_solns=False, backup=1,
                     up_gen_itrs=None, up_batch_size=args.batch, nnet_batch_size=args.nnet_batch,
                     sync_main=False, v=args.verbose)
    updater = get_updater(domain, "graph_v", up_args, False, "heur")
    assert isinstance(updater, UpdateHeur)
    train_args = TrainArgs(args.batch, 10 ** 9, False, rb=0, loss_thresh=float("inf"),
                           display=0)

    heur_targ_file = os.path.join(work, "heur_targ.pt")
    updater.set_heur_nnet(heur_nnet_par)
    updater.set_heur_file(heur_targ_file)

    nnet = heur_nnet_par.get_nnet()
    params = sum(p.numel() for p in nnet.parameters() if p.requires_grad)
    print(f"deepxube {deepxube.__version__}: heuristic {heur_arg}, {params:,} parameters, "
          f"{args.procs} worker process(es)")

    to_main_q, from_main_qs = updater.start_procs(0)
    try:
        writer = SummaryWriter(work)
        trainer = TrainHeur(nnet, updater, to_main_q, from_main_qs, os.path.join(work, "heur.pt"),
                            heur_targ_file, os.path.join(work, "heur_status.pkl"),
                            os.path.join(work, "heur_train_summary.pkl"), device, False, writer,
                            train_args)

        def one_update(itrs: int) -> float:
            up_args.up_itrs = itrs
            updater.set_targ_update_num(updater.heur_name(), trainer.status.targ_update_num)
            start = time.perf_counter()
            trainer.update_step()
            return time.perf_counter() - start

        if args.warmup_iterations > 0:
            secs = one_update(min(args.warmup_iterations, args.iterations))
            print(f"warm-up update: {secs:.2f} s")
        secs = one_update(args.iterations)
        writer.close()
    finally:
        updater.stop_procs()
    print(f"timed update: {args.iterations} iterations x {args.batch} states in {secs:.2f} s")
    return args.iterations * args.batch / secs, params


if __name__ == "__main__":
    sys.exit(main())
