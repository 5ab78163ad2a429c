"""Loading a TorchScript archive of ~47 MB: tsjit against its floor and PyTorch.

The model is a ResNet-18-sized CNN (a 7x7 stem, four stages of two basic blocks of
conv/batch-norm/relu, 64 to 512 channels, a 1000-way linear head: 11.7 M float32
parameters), built in this file. With PyTorch installed it is scripted and saved by
`torch.jit.save` (the archive users bring); without, tsjit scripts it on its torch
shim and saves it with `tsjit.save`. Each loader runs in a fresh process:

    tsjit       tsjit.load(path): the module, its tensors views of the mapped file,
                code/ parsed and its classes declared (methods compile on first call)
    floor       zipfile + np.frombuffer: every record read, no module built
    torch       torch.jit.load(path), when PyTorch is importable

For each: the best of several loads (ms), and the peak memory one load adds (MB, the
process's maximum resident size after minus before). The goal: tsjit within 1.5x of the
floor, no slower than torch.jit.load, its peak no more than the weights plus 10%. The
first forward (which compiles code/) and its memory are reported beside.

    .venv/bin/python bench/archive.py [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

REPEATS = 7
SIZE = 47_000_000  # about ResNet-18's 11.7 M float32 parameters


def build_archive(path: Path) -> str:
    """Writes the model to `path`; which library wrote it."""
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        model = torch.jit.script(resnet18(torch).eval())
        torch.jit.save(model, str(path))
        return f"torch.jit.save (PyTorch {torch.__version__})"
    import tsjit
    from tsjit.frontend import torch_shim

    tsjit.save(tsjit.script(resnet18(torch_shim).eval()), str(path))
    return "tsjit.save (PyTorch is not installed)"


def resnet18(torch):
    nn = torch.nn

    class BasicBlock(nn.Module):
        def __init__(self, inplanes: int, planes: int, stride: int):
            super().__init__()
            self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(planes)
            self.relu = nn.ReLU()
            self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(planes)
            if stride != 1 or inplanes != planes:
                self.downsample = nn.Sequential(
                    nn.Conv2d(inplanes, planes, 1, stride, bias=False), nn.BatchNorm2d(planes)
                )
            else:
                self.downsample = nn.Identity()

        def forward(self, x):
            out = self.relu(self.bn1(self.conv1(x)))
            out = self.bn2(self.conv2(out))
            return self.relu(out + self.downsample(x))

    class ResNet18(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU()
            self.maxpool = nn.MaxPool2d(3, 2, 1)
            stages = []
            inplanes = 64
            for planes, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
                stages.append(
                    nn.Sequential(BasicBlock(inplanes, planes, stride), BasicBlock(planes, planes, 1))
                )
                inplanes = planes
            self.layer1, self.layer2, self.layer3, self.layer4 = stages
            self.avgpool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(512, 1000)

        def forward(self, x):
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
            return self.fc(torch.flatten(self.avgpool(x), 1))

    return ResNet18()


# --------------------------------------------------------------------------------------
# The loaders, each measured in a process of its own
# --------------------------------------------------------------------------------------


def load_tsjit(path: str) -> object:
    import tsjit

    return tsjit.load(path)


def load_floor(path: str) -> object:
    import numpy as np

    with zipfile.ZipFile(path) as archive:
        return [np.frombuffer(archive.read(info), np.uint8) for info in archive.infolist()]


def load_torch(path: str) -> object:
    import torch

    return torch.jit.load(path)


LOADERS = {"tsjit": load_tsjit, "floor": load_floor, "torch": load_torch}


def measure(loader: str, path: str, repeats: int) -> dict[str, float]:
    """In this process: the peak memory of one load, then the best time of `repeats`."""
    load = LOADERS[loader]
    if loader == "tsjit":
        import numpy as np

        import tsjit.formats.archive.reader
        import tsjit.frontend.script  # noqa: F401
    elif loader == "torch":
        import torch  # noqa: F401
    else:
        import numpy as np
    before = _max_rss()
    kept = load(path)
    peak = _max_rss() - before
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        load(path)
        times.append(time.perf_counter() - start)
    result = {"load_ms": min(times) * 1e3, "peak_mb": peak / 1e6}
    if loader == "tsjit":
        import numpy as np

        x = np.random.default_rng(0).standard_normal((1, 3, 64, 64)).astype(np.float32)
        before = _max_rss()
        start = time.perf_counter()
        kept(x)  # pyright: ignore[reportCallIssue]
        result["first_forward_ms"] = (time.perf_counter() - start) * 1e3
        result["forward_peak_mb"] = (_max_rss() - before) / 1e6
    return result


def _max_rss() -> int:
    """The process's peak resident size in bytes: Linux's VmHWM (getrusage's maximum
    survives exec, so a child would start at its parent's peak), else getrusage's."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def run_loader(loader: str, path: Path, repeats: int) -> dict[str, float] | None:
    command = [sys.executable, __file__, "--measure", loader, str(path), "--repeats", str(repeats)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(
            f"{loader}: failed: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else done.returncode}"
        )
        return None
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--measure", nargs=2, metavar=("LOADER", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], args.repeats)))
        return
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "resnet18.pt"
        writer = build_archive(path)
        with zipfile.ZipFile(path) as archive:
            weights = sum(i.file_size for i in archive.infolist() if "/data/" in i.filename)
        print(
            f"archive: {os.path.getsize(path) / 1e6:.1f} MB ({weights / 1e6:.1f} MB of weights), written by {writer}"
        )
        results = {}
        for loader in ("tsjit", "floor", "torch"):
            if loader == "torch":
                try:
                    import torch  # noqa: F401
                except ImportError:
                    print("torch: not installed, skipped")
                    continue
            result = run_loader(loader, path, args.repeats)
            if result is not None:
                results[loader] = result
                print(f"{loader:6} load {result['load_ms']:8.1f} ms   peak +{result['peak_mb']:7.1f} MB")
        ours = results.get("tsjit")
        if ours is None:
            return
        print(f"tsjit first forward (compiles code/): {ours['first_forward_ms']:.0f} ms, "
              f"peak +{ours['forward_peak_mb']:.1f} MB")  # fmt: skip
        if "floor" in results:
            ratio = ours["load_ms"] / results["floor"]["load_ms"]
            print(f"tsjit / floor: {ratio:.2f}x (goal <= 1.5x)")
        if "torch" in results:
            ratio = ours["load_ms"] / results["torch"]["load_ms"]
            print(f"tsjit / torch.jit.load: {ratio:.2f}x (goal <= 1x)")
        budget = weights * 1.1 / 1e6
        print(f"tsjit load peak: +{ours['peak_mb']:.1f} MB of {budget:.1f} MB allowed (weights + 10%)")


if __name__ == "__main__":
    main()
