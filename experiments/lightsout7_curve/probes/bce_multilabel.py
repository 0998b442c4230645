"""Probe: a 3 x W MLP (batch norm) trained with one sigmoid per cell on the full set of pressed
cells (k ~ U[0, 49] distinct presses), inputs as +-1. Every 500 iterations: per depth k, the
share of correct cells, of exactly right sets, and of 500 states solved by greedy play of the
most probable unpressed cell. Usage: python bce_multilabel.py bce MINUTES WIDTH LAYERS
(one thread, batch 10,000, float32). Standalone: not the project's trainer."""

import sys
import time

import torch

torch.set_num_threads(1)
torch.manual_seed(0)
n = 7
N = n * n
A = torch.zeros(N, N)
for r in range(n):
    for c in range(n):
        i = r * n + c
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n:
                A[i, rr * n + cc] = 1
mode = sys.argv[1]
minutes = float(sys.argv[2])
width = int(sys.argv[3])
layers = int(sys.argv[4])


def sample(B, kmax=N):
    k = torch.randint(0, kmax + 1, (B, 1))
    r = torch.rand(B, N).argsort(1).argsort(1)
    x = (r < k).float()
    s = (x @ A) % 2
    return s, x


mods = []
d = N
for _ in range(layers):
    mods += [torch.nn.Linear(d, width), torch.nn.BatchNorm1d(width), torch.nn.ReLU()]
    d = width
mods.append(torch.nn.Linear(d, N))
net = torch.nn.Sequential(*mods)
opt = torch.optim.Adam(net.parameters(), 1e-3)
bce = torch.nn.BCEWithLogitsLoss()
t0 = time.process_time()
it = 0


def evaluate():
    net.eval()
    with torch.no_grad():
        out = {}
        for k in (12, 17, 25, 49):
            kk = torch.full((500, 1), k)
            r = torch.rand(500, N).argsort(1).argsort(1)
            x = (r < kk).float()
            s = (x @ A) % 2
            p = net(2 * s - 1)
            bit = ((p > 0).float() == x).float().mean().item()
            exact = ((p > 0).float() == x).all(1).float().mean().item()
            # greedy: press argmax among unpressed
            st = s.clone()
            pressed = torch.zeros_like(st)
            solved = torch.zeros(500, dtype=torch.bool)
            for _ in range(60):
                solved |= st.sum(1) == 0
                q = net(2 * st - 1)
                q[pressed > 0] = -1e9
                a = q.argmax(1)
                onehot = torch.nn.functional.one_hot(a, N).float()
                onehot[solved] = 0
                st = (st + onehot @ A) % 2
                pressed += onehot
            solved |= st.sum(1) == 0
            out[k] = (round(bit, 3), round(exact, 3), round(solved.float().mean().item(), 3))
    net.train()
    return out


while time.process_time() - t0 < minutes * 60:
    s, x = sample(10000)
    loss = bce(net(2 * s - 1), x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    it += 1
    if it % 500 == 0:
        print(it, round(time.process_time() - t0), round(loss.item(), 4), evaluate(), flush=True)
print("final", it, evaluate(), flush=True)
