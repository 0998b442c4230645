"""Probe: periodic features. A linear layer (H units, weights uniform in [-INIT, INIT]) whose
outputs z give cos(pi z) and sin(pi z), then a 512-unit ReLU layer; with a weight row equal to
a row of the inverse press matrix over GF(2), cos(pi z) is that parity exactly. Trained with
one sigmoid per cell on the pressed set (mode policy) or on the press count (mode value), batch
1,000. Usage: python fourier_features.py policy|value MINUTES H INIT [SEED]. Standalone."""

import math
import sys
import time

import torch

torch.set_num_threads(1)
torch.manual_seed(int(sys.argv[5]) if len(sys.argv) > 5 else 0)
n = 7
N = n * n
A = torch.zeros(N, N)
for r in range(n):
    for c in range(n):
        for dr, dc in ((0, 0), (1, 0), (-1, 0), (0, 1), (0, -1)):
            rr, cc = r + dr, c + dc
            if 0 <= rr < n and 0 <= cc < n:
                A[r * n + c, rr * n + cc] = 1
mode = sys.argv[1]
minutes = float(sys.argv[2])
H = int(sys.argv[3])
init = float(sys.argv[4])


def sample(B):
    k = torch.randint(0, N + 1, (B, 1))
    r = torch.rand(B, N).argsort(1).argsort(1)
    x = (r < k).float()
    return (x @ A) % 2, x


class Net(torch.nn.Module):
    def __init__(s):
        super().__init__()
        s.W = torch.nn.Linear(N, H, bias=True)
        torch.nn.init.uniform_(s.W.weight, -init, init)
        s.head = torch.nn.Sequential(
            torch.nn.Linear(2 * H, 512),
            torch.nn.ReLU(),
            torch.nn.Linear(512, 1 if mode == "value" else N),
        )

    def forward(s, x):
        z = math.pi * s.W(x)
        return s.head(torch.cat([torch.cos(z), torch.sin(z)], 1))


net = Net()
opt = torch.optim.Adam(net.parameters(), 1e-3)
t0 = time.process_time()
it = 0


def ev():
    net.eval()
    out = {}
    with torch.no_grad():
        for k in (12, 25, 40):
            kk = torch.full((500, 1), k)
            r = torch.rand(500, N).argsort(1).argsort(1)
            x = (r < kk).float()
            s = (x @ A) % 2
            if mode == "value":
                p = net(s).squeeze(1)
                out[k] = (round(p.mean().item(), 2), round((p - k).abs().mean().item(), 2))
            else:
                p = net(s)
                out[k] = (
                    round(((p > 0).float() == x).float().mean().item(), 3),
                    round(((p > 0).float() == x).all(1).float().mean().item(), 3),
                )
    net.train()
    return out


while time.process_time() - t0 < minutes * 60:
    s, x = sample(1000)
    p = net(s)
    loss = (
        ((p.squeeze(1) - x.sum(1)) ** 2).mean()
        if mode == "value"
        else torch.nn.functional.binary_cross_entropy_with_logits(p, x)
    )
    opt.zero_grad()
    loss.backward()
    opt.step()
    it += 1
    if it % 1000 == 0:
        print(it, round(time.process_time() - t0), round(loss.item(), 4), ev(), flush=True)
