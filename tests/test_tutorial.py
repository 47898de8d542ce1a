"""PyTorch's autograd tutorial, verbatim, run with ``import autogradkit as torch``.

The code below is what learners run (the official tutorial notebook and the
learners' transcriptions in /work/shared/tutorial/): the one-layer network with
``binary_cross_entropy_with_logits``, its grad_fns, ``loss.backward()`` and the
gradients, the second-backward RuntimeError, ``no_grad``/``enable_grad``/
``detach``, and the Jacobian-product cells. Each variant runs cell by cell after
``torch.manual_seed(seed)``, exactly as in a notebook: an exception ends its cell,
and its last traceback line (``RuntimeError: ...``) is what the learner sees.

The captured stdout must equal PyTorch's, character for character, after masking
``object at 0x...`` addresses and the two intended spelling differences
(``autogradkit.float64`` / ``autogradkit::autograd::AccumulateGrad``).

* golden: ``tests/golden/tutorial_stdout.txt`` holds PyTorch's output (written by
  ``tests/golden/make_tutorial_golden.py``), so this runs without PyTorch;
* live (``-m torch``): PyTorch runs the same cells now; the golden file must agree.

``AUTOGRADKIT_HIDE_TORCH=1`` makes the live tests skip as if PyTorch were absent.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import re
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parent / "golden" / "tutorial_stdout.txt"
SEEDS = (0, 42)

# --------------------------------------------------------------------------- the tutorial's cells

# The official tutorial (and transcriptions 002/003): randn for w and b.
OFFICIAL = [
    """import torch

x = torch.ones(5)  # input tensor
y = torch.zeros(3)  # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.randn(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
""",
    """print(loss)
""",
    """print(z)
""",
    """print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
""",
    """print(w.grad)
""",
    """loss.backward()
print(w.grad)
print(b.grad)
""",
    """# compute gradient twice
loss.backward()
print(w.grad)
# output : RuntimeError: Trying to backward through the graph a second time
""",
    """z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
""",
    """z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
""",
    """inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nSecond call\\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\\nCall after zeroing gradients\\n{inp.grad}")
""",
]

# Transcription 000: randn for w, rand for b; grad_fns printed with commas.
TRANSCRIPTION_000 = [
    """import torch

x = torch.ones(5) # input tensor
y = torch.zeros(3) # expected output
w = torch.randn(5, 3, requires_grad=True)
b = torch.rand(3, requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z,y)
""",
    """print('Gradient function for z =', z.grad_fn)
print('Gradient function for loss =', loss.grad_fn)
""",
    """loss.backward()
print(w.grad)
print(b.grad)
""",
    """z = torch.matmul(x, w)+b
print(z.requires_grad)

z_det = z.detach()
print(z_det.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
""",
]

# Transcription 001: rand for w (size=) and b, enable_grad, and eye(5) Jacobian cells.
TRANSCRIPTION_001 = [
    """import torch
""",
    """x = torch.ones(5) #input tensor
y = torch.zeros(3)
w = torch.rand(size=(5, 3), requires_grad = True) # 建立一個5x3的矩陣才可以做線性轉換
b = torch.rand(3, requires_grad = True)

z = torch.matmul(x, w) + b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
""",
    """print('Gradient function for z =',z.grad_fn)
print('Gradient function for loss =', loss.grad_fn)
""",
    """print(f'current grad without performing loss.backward() is w\\'s {w.grad}, bias\\'s {b.grad}')
""",
    """loss.backward()
print("current grad after performing loss.backward()")
print(w.grad)
print(b.grad)
""",
    """z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)

with torch.enable_grad():
    z = x @ w + b
print(z.requires_grad)

z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
""",
    """inp = torch.eye(5, requires_grad = True)
print(f'Current inp matrix is :')
print({inp})
""",
    """out = (inp+1).pow(2)
print(f'Output is')
print(out)
""",
    """out.backward(torch.ones_like(inp), retain_graph=True)
print("First call\\n", inp.grad)
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nSecond call\\n", inp.grad)
inp.grad.zero_()
out.backward(torch.ones_like(inp), retain_graph=True)
print("\\nCall after zeroing gradients\\n", inp.grad)
""",
]

VARIANTS = {
    "official": OFFICIAL,
    "transcription000": TRANSCRIPTION_000,
    "transcription001": TRANSCRIPTION_001,
}
CASES = [f"{name}-seed{seed}" for name in VARIANTS for seed in SEEDS]


# --------------------------------------------------------------------------- running it


def run_seeded(module_name: str, variant: str, seed: int) -> str:
    """Run a variant's cells with ``torch`` bound to ``module_name``, seeding right
    after ``import torch``; return what they printed."""
    cells = list(VARIANTS[variant])
    first = cells[0]
    alias = "torch" if module_name == "torch" else f"{module_name} as torch"
    seeded = first.replace("import torch\n", f"import {alias}\n_ = torch.manual_seed({seed})\n", 1)
    namespace: dict = {"__name__": "__tutorial__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for i, cell in enumerate([seeded] + cells[1:]):
            if module_name != "torch":
                cell = cell.replace("import torch\n", f"import {module_name} as torch\n")
            try:
                exec(compile(cell, f"<{variant} cell {i}>", "exec"), namespace)
            except Exception as error:
                print(f"{type(error).__name__}: {error}")
    return out.getvalue()


_ADDRESS = re.compile(r"object at 0x[0-9a-fA-F]+")
_AGK_NAME = re.compile(r"\bautogradkit\.(float32|float64|int64|bool|Size)\b")


def normalize(text: str) -> str:
    text = _ADDRESS.sub("object at 0x<address>", text)
    text = _AGK_NAME.sub(r"torch.\1", text)
    return text.replace("autogradkit::autograd::AccumulateGrad", "torch::autograd::AccumulateGrad")


def expected_outputs() -> dict[str, str]:
    """PyTorch's outputs from the golden file, by case name."""
    text = GOLDEN.read_text()
    sections = re.split(r"^===== (\S+) =====\n", text, flags=re.M)
    return {sections[i]: sections[i + 1] for i in range(1, len(sections), 2)}


def render_golden(outputs: dict[str, str]) -> str:
    return "".join(f"===== {case} =====\n{outputs[case]}" for case in CASES)


def _case(case: str) -> tuple[str, int]:
    variant, seed = case.rsplit("-seed", 1)
    return variant, int(seed)


def _torch():
    if os.environ.get("AUTOGRADKIT_HIDE_TORCH", "").strip() not in ("", "0"):
        pytest.skip("PyTorch hidden by AUTOGRADKIT_HIDE_TORCH")
    return pytest.importorskip("torch")


# --------------------------------------------------------------------------- tests


@pytest.mark.e2e
@pytest.mark.parametrize("case", CASES)
def test_tutorial_matches_golden(case):
    variant, seed = _case(case)
    expected = expected_outputs()[case]
    got = normalize(run_seeded("autogradkit", variant, seed))
    assert got == expected


@pytest.mark.e2e
@pytest.mark.torch
@pytest.mark.parametrize("case", CASES)
def test_tutorial_matches_live_torch(case):
    _torch()
    variant, seed = _case(case)
    expected = normalize(run_seeded("torch", variant, seed))
    got = normalize(run_seeded("autogradkit", variant, seed))
    assert got == expected
    assert expected_outputs()[case] == expected, (
        "tests/golden/tutorial_stdout.txt is stale: regenerate it"
    )


def test_tutorial_prints_what_learners_saw():
    """Seed-independent lines of the learners' transcriptions, word for word."""
    out = normalize(run_seeded("autogradkit", "transcription001", 0))
    for line in [
        "Gradient function for z = <AddBackward0 object at 0x<address>>",
        "Gradient function for loss = <BinaryCrossEntropyWithLogitsBackward0 object at 0x<address>>",
        "current grad without performing loss.backward() is w's None, bias's None",
        "{tensor([[1., 0., 0., 0., 0.],",
        "        [0., 0., 0., 0., 1.]], requires_grad=True)}",
        "        [1., 1., 1., 1., 4.]], grad_fn=<PowBackward0>)",
        "First call\n tensor([[4., 2., 2., 2., 2.],",
        "Second call\n tensor([[8., 4., 4., 4., 4.],",
        "Call after zeroing gradients\n tensor([[4., 2., 2., 2., 2.],",
        "True\nFalse\nTrue\nFalse\n",
    ]:
        assert line in out, line
    official = normalize(run_seeded("autogradkit", "official", 0))
    assert (
        "RuntimeError: Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph are freed "
        "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
        "through the graph a second time or if you need to access saved tensors after calling backward."
    ) in official
    assert importlib.import_module("autogradkit").__name__ == "autogradkit"
