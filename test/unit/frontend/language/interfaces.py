# ruff: noqa - interfaces: class interfaces and a module interface
import torch
from torch import Tensor
from typing import List


@torch.jit.interface
class Shape:
    def area(self) -> float:
        pass

    def scaled(self, k: float) -> float:
        pass


class Square:
    def __init__(self, side: float):
        self.side = side

    def area(self) -> float:
        return self.side * self.side

    def scaled(self, k: float) -> float:
        return self.area() * k * k


class Circle:
    def __init__(self, r: float):
        self.r = r

    def area(self) -> float:
        return 3.0 * self.r * self.r

    def scaled(self, k: float) -> float:
        return self.area() * k


def total_area(shapes: List[Shape], k: float) -> float:
    s = 0.0
    for shape in shapes:
        s += shape.area() + shape.scaled(k)
    return s


@torch.jit.interface
class Activation(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        pass


class Doubler(torch.nn.Module):
    def forward(self, x: Tensor) -> Tensor:
        return x * 2


class Model(torch.nn.Module):
    act: Activation

    def __init__(self):
        super().__init__()
        self.act = Doubler()

    def forward(self, x: Tensor, k: float):
        a: Shape = Square(k)
        shapes: List[Shape] = [a, Circle(1.0)]
        return self.act(x) + total_area(shapes, 2.0)
