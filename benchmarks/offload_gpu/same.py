"""Compare two outputs token by token: numbers within rtol 1e-9 / atol 1e-12, text exactly."""

import sys
from pathlib import Path

a, b = (Path(name).read_text().split() for name in sys.argv[1:3])
if len(a) != len(b):
    sys.exit(f"different token counts {len(a)} vs {len(b)}")
for x, y in zip(a, b, strict=True):
    try:
        fx, fy = float(x), float(y)
    except ValueError:
        if x != y:
            sys.exit(f"{x!r} != {y!r}")
        continue
    if abs(fx - fy) > 1e-12 + 1e-9 * max(abs(fx), abs(fy)):
        sys.exit(f"{x} != {y}")
