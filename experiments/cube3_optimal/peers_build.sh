#!/usr/bin/env bash
# Build the two peers of experiments/cube3_optimal/peers.py from their public sources, in a
# folder outside the checkout (nothing of theirs is committed here).
#   CUBE20SRC: a checkout of github.com/rokicki/cube20src (nxopt; needs ctangle, from Debian's
#              texlive-binaries, and g++)
#   NISSY:     a checkout of github.com/sebastianotronto/nissy-core (H48; needs cc and
#              python3-config)
#   OUT:       where the programs go: OUT/nxopt/nxopt31q, nxopt31h (EO3EP1, 2.60 GB tables),
#              nxopt22q (EO2EP2, 7.79 GB) and OUT/nissy/nissy.so
# Usage: experiments/cube3_optimal/peers_build.sh CUBE20SRC NISSY OUT
set -euo pipefail
src=$(cd "${1:?usage: peers_build.sh CUBE20SRC NISSY OUT}" && pwd)
nissy=$(cd "${2:?usage: peers_build.sh CUBE20SRC NISSY OUT}" && pwd)
out=${3:?usage: peers_build.sh CUBE20SRC NISSY OUT}
mkdir -p "$out/nxopt" "$out/nissy"
out=$(cd "$out" && pwd)
(
  cd "$src"
  CWEBINPUTS=. ctangle ./cubepos.w > /dev/null
  CWEBINPUTS=. ctangle ./nxopt.w > /dev/null
  flags=(-DPS=16 -std=c++11 -O3 -march=native -DTHREADS)
  g++ "${flags[@]}" -DQUARTER -DEO3 -DEP1 -o "$out/nxopt/nxopt31q" nxopt.cpp cubepos.cpp -lpthread
  g++ "${flags[@]}" -DHALF -DEO3 -DEP1 -o "$out/nxopt/nxopt31h" nxopt.cpp cubepos.cpp -lpthread
  g++ "${flags[@]}" -DQUARTER -DEO2 -DEP2 -o "$out/nxopt/nxopt22q" nxopt.cpp cubepos.cpp -lpthread
)
(
  cd "$nissy"
  NISSY_BUILD_THREADS=2 ./build.sh python
  cp python/nissy.so "$out/nissy/"
)
echo "built: $out/nxopt/{nxopt31q,nxopt31h,nxopt22q} $out/nissy/nissy.so (the compiler: $(g++ --version | head -1))"
