"""Probe: a curriculum on the walk length. The project's policy target (cross-entropy against
the uniform distribution over the pressed cells) on the `mlp` network (3 x 512, batch norm),
batch 10,000, float32, one thread; walks of k ~ U[1, K] distinct presses, K starting at KSTART
and rising by one whenever greedy play solves at least THRESHOLD of 200 held-out walks of K
presses (checked every 50 iterations). Usage: python curriculum.py MINUTES THRESHOLD KSTART.
Standalone."""

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
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n:
                A[r * n + c, rr * n + cc] = 1
minutes = float(sys.argv[1])
thr = float(sys.argv[2])
kstart = int(sys.argv[3])


def walks(k):  # k: (B,1) press counts
    B = k.shape[0]
    r = torch.rand(B, N).argsort(1).argsort(1)
    x = (r < k).float()
    return (x @ A) % 2, x


mods = []
d = N
for _ in range(3):
    mods += [torch.nn.Linear(d, 512), torch.nn.BatchNorm1d(512), torch.nn.ReLU()]
    d = 512
mods.append(torch.nn.Linear(d, N))
net = torch.nn.Sequential(*mods)
opt = torch.optim.Adam(net.parameters(), 1e-3)


def greedy(k, m=200):
    net.eval()
    with torch.no_grad():
        s, _ = walks(torch.full((m, 1), k))
        solved = torch.zeros(m, dtype=torch.bool)
        for _ in range(k + 10):
            solved |= s.sum(1) == 0
            a = net(s).argmax(1)
            oh = torch.nn.functional.one_hot(a, N).float()
            oh[solved] = 0
            s = (s + oh @ A) % 2
        solved |= s.sum(1) == 0
    net.train()
    return solved.float().mean().item()


K = kstart
t0 = time.process_time()
it = 0
states = 0
while time.process_time() - t0 < minutes * 60:
    k = torch.randint(1, K + 1, (10000, 1))
    s, x = walks(k)
    tgt = x / x.sum(1, keepdim=True)
    loss = -(tgt * torch.log_softmax(net(s), 1)).sum(1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    it += 1
    states += 10000
    if it % 50 == 0:
        g = greedy(K)
        if g >= thr and K < N:
            K = min(N, K + 1)
    if it % 200 == 0:
        print(
            it,
            states // 10**6,
            "M",
            round(time.process_time() - t0),
            "K",
            K,
            {d: round(greedy(d, 300), 2) for d in (6, 12, 17, 22, 28)},
            flush=True,
        )
