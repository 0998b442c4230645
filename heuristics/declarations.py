"""The declarations of the built-in heuristics: name, class, options (their bounds and
defaults, stated once), properties (a property that depends on an option as a
:class:`core.props.WhenOption`). ``core.registry`` reads :data:`HEURISTICS` (its
``BUILTIN_DECLARATIONS``), the form a plugin's entry point names too; each class checks its
arguments through its entry (``Entry.settings``). This module imports nothing but ``core``:
``bench list`` reads it without loading a heuristic, a table or a network."""

from __future__ import annotations

from dataclasses import replace

from core.entry import Entry
from core.names import DEVICES, PRECISIONS, TILE_NAMES, VALUE_NET
from core.options import Option
from core.pdb_decls import CORNER_PDBS, CUBE_PDBS, EDGE_TABLES, PROBE_INVERSE, TILE_PDBS
from core.props import HeuristicProps, WhenOption

_TILES = tuple(TILE_NAMES.values())
#: an admissible heuristic with an IDA* kernel (``consistent``: proven, see HeuristicProps)
_KERNEL = HeuristicProps(admissible=True, kernel=True)

MODEL = Option("model", str, "model of a learned heuristic: a name, run folder or file",
               default_text="the shipped model", metavar="M")
DEVICE = Option("device", str, "where a network evaluates", choices=DEVICES,
                default="cpu", metavar="DEV")
#: a class built without a precision takes float32; bench solve and suites give the model's
#: recommendation where it has one
PRECISION = Option("precision", str, "a network's hidden layers", choices=PRECISIONS,
                   default="float32", default_text="the model's recommendation, else float32",
                   metavar="P")

#: the class of each cube pattern database heuristic
_CUBE_PDB_CLASSES = {"pdb-korf": "heuristics.pdb_cube:KorfCubePDB",
                     "pdb-coset": "heuristics.pdb_coset:CosetCubePDB",
                     "pdb-coset-eo": "heuristics.pdb_coset_eo:CosetEOCubePDB",
                     "pdb-coset-eo2ep2": "heuristics.pdb_coset_eo:CosetEO2EP2CubePDB",
                     "pdb-cube2": "heuristics.pdb_cube:Cube2PDB"}

#: options of the cube pattern database heuristics
_CUBE_PDB_OPTIONS: dict[str, tuple[Option, ...]] = {
    "pdb-korf": (
        Option("edge_tables", str, "the two edge databases: 6+6 (Korf 1997: two disjoint 6-edge "
               "sets, 42.6 M entries each) or 7+7 (two 7-edge sets sharing two edges, 510.9 M "
               "entries each, 244 MiB at 4 bits, about 20 s each to build)",
               choices=tuple(EDGE_TABLES), default="6+6", metavar="E"),
    ),
    "pdb-coset-eo": (
        Option("probe_inverse", str, "look up the inverse position along the three axes too "
               "(on: for every child; near: in IDA*, only for children the forward lookups "
               "leave exactly at the cost bound)", choices=PROBE_INVERSE, default="on",
               metavar="P"),
        Option("sides", str, "IDA*: at each node search the position or its inverse, whichever "
               "the table leaves fewer moves (both: nxopt's search, needs --probe-inverse on), "
               "or the position only (forward)", choices=("both", "forward"),
               default_text="both with --probe-inverse on, else forward", metavar="S"),
    ),
    "pdb-coset-eo2ep2": (),  # pdb-coset-eo's (below)
    "pdb-coset": (
        Option("probe_inverse", str, "also look up the inverse position along the three axes "
               "(admissible, not always consistent); near: in IDA*, only for children the "
               "forward lookups leave exactly at the cost bound", choices=PROBE_INVERSE,
               default="off", metavar="P"),
        Option("corner_pdb", str, "Korf's corner table in the max (corners: 88.2 M entries, "
               "exact corner distances; corner-perm/corner-twist: small projections)",
               choices=CORNER_PDBS, default="none", metavar="C"),
    ),
}

#: whether each cube pattern database heuristic is consistent: a max of pattern databases is;
#: the inverse position's lookups (``probe_inverse``) are admissible and not always consistent,
#: and ``pdb-coset-eo``'s extra rule never is
_CUBE_PDB_CONSISTENT: dict[str, bool | WhenOption] = {
    "pdb-korf": True, "pdb-cube2": True, "pdb-coset": WhenOption("probe_inverse", ("off",)),
    "pdb-coset-eo": False, "pdb-coset-eo2ep2": False}
_CUBE_PDB_OPTIONS["pdb-coset-eo2ep2"] = _CUBE_PDB_OPTIONS["pdb-coset-eo"]

#: the puzzles the training engine serves (Sokoban through its own reverse walks)
LEARNED_PUZZLES = ("cube*", "puzzle*", "lightsout*", "sokoban*")
#: goal trees grow from one goal state: not Sokoban's set of goals
ONE_GOAL_PUZZLES = ("cube*", "puzzle*", "lightsout*")

HEURISTICS: list[Entry[HeuristicProps]] = [
    Entry("manhattan", "heuristics.manhattan:Manhattan", "sum of tile Manhattan distances",
          {}, replace(_KERNEL, puzzles=_TILES, consistent=True)),
    Entry("linear-conflict", "heuristics.manhattan:LinearConflict",
          "Manhattan distance plus 2 per linear conflict", {}, replace(_KERNEL, puzzles=_TILES)),
    Entry("lights-on", "heuristics.lights:LightsOn", "lights on divided by 5, rounded up", {},
          replace(_KERNEL, puzzles="lightsout*", consistent=True)),
    *[  # the max of pattern databases (exact distances of abstractions) is consistent
        Entry(name, _CUBE_PDB_CLASSES[name], d.summary, {},
              replace(_KERNEL, puzzles=d.puzzles, consistent=_CUBE_PDB_CONSISTENT[name],
                      needs_pdb=True, pdb=d, exact=name == "pdb-cube2"),
              _CUBE_PDB_OPTIONS.get(name, ()))
        for name, d in CUBE_PDBS.items()
    ],
    *[  # additive sums are not consistent (their minimum over blank regions can drop by
        # more than one per move); the exact table is
        Entry(name + suffix, "heuristics.pdb_tiles:AdditiveTilePDB",
              d.summary + (", max with the diagonal reflection" if suffix else ""),
              {"partition": d.partition, "reflect": bool(suffix)},
              replace(_KERNEL, puzzles=d.puzzles, consistent=d.partition == "full",
                      needs_pdb=True, pdb=d, exact=name == "pdb-full"))
        for name, d in TILE_PDBS.items()
        for suffix in ("", "-reflect")
    ],
    Entry("zero", "heuristics.zero:Zero", "h = 0 (blind search; what table-driven solvers run "
          "with)", {}, HeuristicProps(admissible=True, consistent=True)),
    Entry("sokoban-push", "heuristics.sokoban:PushDistance",
          "Sokoban: sum over boxes of the pushes to the nearest goal (dead squares: inf)", {},
          HeuristicProps("sokoban*", admissible=True, consistent=True)),
    Entry("sokoban-matching", "heuristics.sokoban:PushMatching",
          "Sokoban: pushes of the best assignment of boxes to goals (Hungarian algorithm)", {},
          HeuristicProps("sokoban*", admissible=True, consistent=True)),
    Entry(VALUE_NET, "heuristics.value_net:ValueNetHeuristic",
          "value network: a trained cost-to-go estimate (DAVI as in DeepCubeA, diffusion "
          "distance, ...)", {},
          HeuristicProps(LEARNED_PUZZLES, needs_model=True, aliases=("davi",),
                         recommend="learning.model_store:recommended_search",
                         model_files="learning.model_store:value_model_files"),
          (MODEL, DEVICE, PRECISION)),
    Entry("policy", "heuristics.policy_net:PolicyNet",
          "move-prediction network (EfficientCube): ranks moves, gives no distance estimate; "
          "beam search only", {},
          HeuristicProps(LEARNED_PUZZLES, needs_model=True, ranks_moves=True,
                         default_solver="beam", default_note="the search that takes a policy",
                         recommend="learning.model_store:recommended_policy_search",
                         model_files="learning.model_store:policy_model_files"),
          (replace(MODEL, help="policy model: a name, run folder or file (bench train "
                   "policy)", default_text="the shipped PUZZLE-policy"), DEVICE, PRECISION)),
    Entry("qnet", "heuristics.q_net:QNetHeuristic",
          "Q-network: values for every move of a state from one evaluation (Q* search, "
          "Q-beam); as a value, the least of them", {},
          HeuristicProps(LEARNED_PUZZLES, needs_model=True, q_values=True,
                         default_solver="qstar",
                         default_note="the search that reads a Q-network's move values",
                         model_files="learning.model_store:q_model_files"),
          (replace(MODEL, help="Q-network: a name, run folder or file (bench train "
                   "q-distill|q-learning|q-diffusion)", default_text="the shipped PUZZLE-q"),
           DEVICE, PRECISION)),
    Entry("davi-multigoal", "heuristics.multigoal:MultiGoalHeuristic",
          "a tree of goal networks (multi-goal DeepCubeA, Moravej): min over goals of "
          "f_i + d_i; searches also stop at the tree's goals", {},
          HeuristicProps(ONE_GOAL_PUZZLES, needs_model=True, default_solver="bwas",
                         default_note="the default search for a multi-goal model",
                         model_files="learning.multigoal:tree_files"),
          (replace(MODEL, help="multi-goal model folder (bench train multigoal)",
                   default_text="none: required"), DEVICE, PRECISION,
           Option("combine", str, "how goal estimates combine: sum = min_i (f_i + d_i), "
                  "ratio = min_i f_i / (m d_i) (the report's)", choices=("sum", "ratio"),
                  default="sum", metavar="C"),
           Option("m", float, "the ratio combination's m", default=1.0, low=0.0,
                  low_ok=False, metavar="M"))),
    Entry("onnx", "heuristics.onnx:load_onnx",
          "a network in an ONNX file (a value network, a policy or a Q-network, as its card "
          "says), "
          "evaluated by onnxruntime on the CPU", {},
          HeuristicProps(needs_model=True, recommend="heuristics.onnx:recommended_search",
                         model_files="heuristics.onnx:model_files", q_values=None),
          (replace(MODEL, help="ONNX file (its card NAME.card.json beside it) or a folder "
                   "holding one", default_text="none: required"),
           replace(DEVICE, choices=("auto", "cpu"), help="where a network evaluates (onnx: "
                   "the CPU)"))),
]
