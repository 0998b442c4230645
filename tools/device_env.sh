# Sourced by the scripts that run on a lent GPU machine. Its image lacks platformdirs, which
# evaluation imports (training does not): bring the wheel in .whl (ignored by git) with
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 \
#       --implementation cp --platform manylinux2014_x86_64 -d .whl platformdirs
# and name .whl in the call's carry; it is installed under /tmp/site there.
if ! python3 -c "import platformdirs" 2>/dev/null && ls .whl/*.whl >/dev/null 2>&1; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl \
    && export PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH}
fi

# device_info: the GPU and the versions a run used (for its env.txt)
device_info() {
  (nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>/dev/null || true
   python3 -c "import torch, numpy, numba; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'numpy', numpy.__version__, 'numba', numba.__version__)"
  ) 2>&1
}
