"""Write ``tests/golden/tutorial_stdout.txt``: what PyTorch prints for every
variant and seed of the tutorial in ``tests/test_tutorial.py``.

Run ``python3 tests/golden/make_tutorial_golden.py`` on a machine with PyTorch
after changing the tutorial cells, the variants or the seeds.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent


def main() -> None:
    spec = importlib.util.spec_from_file_location("test_tutorial", TESTS / "test_tutorial.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import torch  # noqa: F401  (fail early when PyTorch is missing)

    outputs = {}
    for case in module.CASES:
        variant, seed = case.rsplit("-seed", 1)
        outputs[case] = module.normalize(module.run_seeded("torch", variant, int(seed)))
    module.GOLDEN.write_text(module.render_golden(outputs))
    print(f"wrote {len(outputs)} tutorial runs to {module.GOLDEN}")


if __name__ == "__main__":
    main()
