"""The progress report of a comparison on stderr."""

import sys
import time


class _Progress:
    """Progress of a run on stderr: a tqdm bar on a terminal, one plain line per step otherwise.

    A bar redraws one line with carriage returns, which only makes sense on a terminal; in a
    log file or a pipe each step is written as a line of its own (count, what finished and
    the elapsed time), so that ``skpacbayes compare ... > run.log 2>&1`` can be followed with
    ``tail -f``.
    """

    def __init__(self, total, enabled=True, label=""):
        self.total, self.done, self.label = total, 0, label
        self.enabled = bool(enabled)
        self.start = time.perf_counter()
        self._bar = None
        if self.enabled and _isatty(sys.stderr):
            from tqdm import tqdm

            self._bar = tqdm(total=total, desc=label, unit="fit", file=sys.stderr, leave=True)

    def step(self, what):
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(what, refresh=False)
            self._bar.update(1)
            return
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(
            f"{self.label}: {self.done}/{self.total} fits done ({what}), {elapsed:.1f} s\n"
        )
        sys.stderr.flush()

    def note(self, what):
        """Report work that is not one of the counted fits (a shared voter bank)."""
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(what)
            return
        elapsed = time.perf_counter() - self.start
        sys.stderr.write(f"{self.label}: {what}, {elapsed:.1f} s\n")
        sys.stderr.flush()

    def close(self):
        if self._bar is not None:
            self._bar.close()


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # replaced or closed stream
        return False
