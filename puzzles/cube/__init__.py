"""Rubik's cube 3x3x3 (``Cube3``) and 2x2x2 (``Cube2``) as sticker arrays.

State
    Facelet colours, ``uint8``, shape ``(54,)`` (2x2x2: ``(24,)``), in Kociemba's facelet order:
    faces ``U R F D L B``, each read row by row; ``U`` is seen from above with ``B`` at the top,
    ``D`` from below with ``F`` at the top, the side faces from outside with ``U`` at the top.
    Colour values ``0..5`` are ``U R F D L B`` (the colour of that face's centre when solved)::

                     U1 U2 U3
                     U4 U5 U6
                     U7 U8 U9
            L1 L2 L3 F1 F2 F3 R1 R2 R3 B1 B2 B3
            L4 L5 L6 F4 F5 F6 R4 R5 R6 B4 B5 B6
            L7 L8 L9 F7 F8 F9 R7 R8 R9 B7 B8 B9
                     D1 D2 D3
                     D4 D5 D6
                     D7 D8 D9

    indices: U1..U9 = 0..8, R1..R9 = 9..17, F = 18..26, D = 27..35, L = 36..44, B = 45..53.
    The 2x2x2 uses the same order with 4 facelets per face (``U1 U2 / U3 U4`` = 0..3, ...).

Actions (other modules rely on this order)
    ``metric="qtm"`` (quarter-turn metric, DeepCubeA): ``U U' R R' F F' D D' L L' B B'``;
    action ``a = 2*face + (0 clockwise, 1 counter-clockwise)``, faces numbered ``U R F D L B`` = 0..5.
    ``metric="htm"`` (half-turn metric, Korf 1997): ``U U' U2 R R' R2 ...``; ``a = 3*face + (0 cw,
    1 ccw, 2 half turn)``. ``ACTION_FACE[a]`` is the face, ``ACTION_POWER[a]`` the number of clockwise
    quarter turns (1, 3 or 2). The 2x2x2 keeps its down-back-left corner fixed and turns only
    ``U R F`` (faces 0, 1, 2): 6 actions (qtm) or 9 (htm), numbered by the same scheme.

Cubies (Kociemba's convention)
    Corners ``URF UFL ULB UBR DFR DLF DBL DRB`` (0..7), edges ``UR UF UL UB DR DF DL DB FR FL BL BR``
    (0..11). ``cp[i]`` is the corner in slot ``i``, ``co[i]`` its twist: which of the slot's three
    facelets (listed in the order of the slot's name, e.g. ``U9 R1 F3`` for URF) carries the corner's
    U/D colour (0, 1 or 2). ``ep[i]`` is the edge in slot ``i``, ``eo[i]`` its flip (0 when the
    edge's first colour lies on the slot's first facelet). Moves act on cubies as in Kociemba's
    cubie-level multiplication: after action ``a`` with tables ``(mcp, mco, mep, meo) =
    CUBIE_MOVES[a]``, ``cp' = cp[mcp]``, ``co' = (co[mcp] + mco) % 3``, ``ep' = ep[mep]``,
    ``eo' = (eo[mep] + meo) % 2`` (see ``apply_cubies``). ``Cube3.to_cubies`` returns
    ``(cp, co, ep, eo)``; ``Cube2.to_cubies`` returns ``(cp, co)`` with corner DBL (6) fixed in slot 6.
    The 2x2x2 also has a compact index ``cube2_index`` (corner permutation x twist, 3,674,160
    values) and ``Cube2.distance_table()``, the exact distance of every state by breadth-first search.

DeepCubeA
    ``from_deepcubea_cube3`` maps their sticker ids (faces U D L R B F, colour = id // 9, each face
    a quarter turn from our layout) to our facelets; ``deepcubea_moves`` maps their ``[face, +1|-1]``
    moves to actions (``+1`` is clockwise).

Modules: ``facelets`` (faces, pieces, the geometry of face turns), ``cubies`` (the cubie model),
``base`` (what both cubes share: parsing, formatting, move tables), ``cube3``, ``cube2`` and
``deepcubea`` (their layout and notation). The move tables are built from the geometry of the cube (sticker positions rotated about face
axes), not typed in; the tests check them against the golden facelet strings.
"""


from puzzles.cube.base import CubeBase
from puzzles.cube.cube2 import (
    CUBE2_PERMS,
    CUBE2_SLOTS,
    CUBE2_TWISTS,
    Cube2,
    cube2_index,
    cube2_unindex,
)
from puzzles.cube.cube3 import Cube3
from puzzles.cube.cubies import CubieMoves
from puzzles.cube.deepcubea import (
    DEEPCUBEA_FACES,
    DEEPCUBEA_POSITIONS,
    deepcubea_cube3_tables,
    deepcubea_moves,
    from_deepcubea_cube3,
)
from puzzles.cube.facelets import (
    CORNER_COLORS,
    CORNER_NAMES,
    DBL,
    EDGE_COLORS,
    EDGE_NAMES,
    FACE_NORMALS,
    OPPOSITE,
    B,
    D,
    F,
    L,
    R,
    U,
    face_turn_perm,
)
from puzzles.notation import FACES

__all__ = [
    "CORNER_COLORS", "CORNER_NAMES", "CUBE2_PERMS", "CUBE2_SLOTS", "CUBE2_TWISTS", "DBL",
    "DEEPCUBEA_FACES", "DEEPCUBEA_POSITIONS", "EDGE_COLORS", "EDGE_NAMES", "FACES",
    "FACE_NORMALS", "OPPOSITE", "U", "R", "F", "D", "L", "B", "Cube2", "Cube3", "CubeBase", "CubieMoves", "cube2_index",
    "cube2_unindex", "deepcubea_cube3_tables", "deepcubea_moves", "face_turn_perm",
    "from_deepcubea_cube3",
]
