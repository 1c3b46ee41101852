"""Speed of the posterior families' stochastic loss (forward + backward).

For each family (Categorical, Dirichlet, Gaussian binary, Gaussian multi-class with
k = 10) on m = 100,000 examples and n = 200 voters (int8 votes, float32 parameters,
CPU unless ``--device`` says otherwise), prints the median time of ``sum(r)`` forward +
backward over ``--repeats`` runs after a warm-up, and its ratio to a plain float32
matrix-vector product ``(m x n) @ (n,)`` of the same size (the reference unit; issue 2
asks for at most 20x for the Dirichlet and the multi-class Gaussian). The reference (a
median of at least 11 repeated, hence cache-warm, products) is timed again just before
each family, so that the ratios follow a machine whose load drifts; the table shows both
medians. A second table times the float64 (certificate) evaluation without gradient.

Usage::

    python benchmarks/bench_posteriors.py [--m 100000] [--n 200] [--repeats 5] [--threads T]
        [--accuracy 0.7]

(``--threads 1`` gives the most reproducible figures on a shared machine.)
"""

import argparse
import statistics
import time

import torch

from skpacbayes.posteriors import Categorical, Dirichlet, Gaussian


def _median_time(fn, repeats, device):
    fn()  # warm-up
    fn()
    times = []
    for _ in range(repeats):
        if device.type == "cuda":
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _problem(post, m, n, device, generator, accuracy=None):
    k = post.n_classes
    votes = torch.randint(0, k, (m, n), generator=generator, dtype=torch.int8)
    y = torch.randint(0, k, (m,), generator=generator, dtype=torch.int64)
    if accuracy is not None:  # forest-like votes: each voter right with this probability
        right = torch.rand((m, n), generator=generator) < accuracy
        votes = torch.where(right, y[:, None].to(torch.int8), votes)
    votes, y = votes.to(device), y.to(device)
    raw = post.init_raw(generator=generator, dtype=torch.float32, device=device)
    with torch.no_grad():  # a non-trivial point (the prior mean gives r = 1/2 for the Gaussian)
        raw.add_(0.3 * torch.randn(n, generator=generator).to(device))
    return votes, y, raw


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--threads", type=int, default=None)
    parser.add_argument("--skip-float64", action="store_true")
    parser.add_argument(
        "--accuracy",
        type=float,
        default=None,
        help="forest-like votes: each voter votes the true class with this probability "
        "(default: uniformly random votes, every class active in every integral)",
    )
    args = parser.parse_args(argv)
    if args.threads:
        torch.set_num_threads(args.threads)
    device = torch.device(args.device)
    m, n = args.m, args.n
    gen = torch.Generator().manual_seed(0)

    mat = torch.randn(m, n, generator=gen).to(device)
    vec = torch.randn(n, generator=gen).to(device)
    t_mv = _median_time(lambda: mat @ vec, max(args.repeats, 11), device)

    families = [
        ("categorical", Categorical(n)),
        ("dirichlet", Dirichlet(n)),
        ("gaussian binary", Gaussian(n)),
        ("gaussian multi-class k=10", Gaussian(n, n_classes=10)),
    ]
    votes_kind = "random" if args.accuracy is None else f"forest-like (accuracy {args.accuracy})"
    print(
        f"m = {m}, n = {n}, device = {device}, torch threads = {torch.get_num_threads()}, "
        f"median of {args.repeats} runs, {votes_kind} votes"
    )
    print(f"reference float32 matrix-vector product: {1e3 * t_mv:.2f} ms")
    print()
    print(
        f"{'family':<28}{'fwd+bwd float32 (ms)':>22}{'matvec just before (ms)':>25}"
        f"{'ratio to matvec':>17}  issue 2 target"
    )
    for name, post in families:
        votes, y, raw = _problem(post, m, n, device, gen, args.accuracy)

        def step(post=post, votes=votes, y=y, raw=raw):
            raw.grad = None
            r = post.stochastic_loss(post.natural(raw), votes, y)
            r.sum().backward()

        t_ref = _median_time(lambda: mat @ vec, max(args.repeats, 11), device)
        t = _median_time(step, args.repeats, device)
        ratio = t / t_ref
        target = ""
        if name.startswith(("dirichlet", "gaussian multi")):
            target = "<= 20x: " + ("met" if ratio <= 20 else "NOT met")
        print(f"{name:<28}{1e3 * t:>22.1f}{1e3 * t_ref:>25.2f}{ratio:>17.1f}  {target}")

    if args.skip_float64:
        return
    print()
    print(f"{'family':<28}{'float64 no grad (ms)':>22}{'ratio to matvec':>18}")
    for name, post in families:
        votes, y, raw = _problem(post, m, n, device, gen, args.accuracy)
        nat = post.natural(raw.detach().double())

        def evaluate(post=post, votes=votes, y=y, nat=nat):
            with torch.no_grad():
                post.stochastic_loss(nat, votes, y)

        t = _median_time(evaluate, max(1, min(args.repeats, 3)), device)
        print(f"{name:<28}{1e3 * t:>22.1f}{t / t_mv:>18.1f}")


if __name__ == "__main__":
    main()
