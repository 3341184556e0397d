#!/usr/bin/env python3
"""Write residual_model.onnx: two ResNet basic blocks, for tests/e2e/test_residual.sh (the residual
adds on the accelerator, compiler/accel/alu.c, bit-exact against the CPU int8 path). Also
residual_x.npy (one input [1, 16, 16, 16]) and residual_ref.npy (torch's fp32 output), float32.

    x [1,16,16,16] -> block(16 -> 16, stride 1: the add's other input is x)
      -> block(16 -> 32, stride 2: the other input through a 1x1 stride-2 conv + BN) -> y [1,32,8,8]
    block: Conv 3x3 + BN + Relu, Conv 3x3 + BN, Add(other), Relu

BatchNorm statistics seeded (not the identity), so the two inputs of an add get different scales.
Exported by torch (torch.onnx.export, opset 13; Debian's python3-torch). Run from the repository
root:
    /usr/bin/python3 tests/e2e/data/gen_residual_model.py
"""
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(15)


def bn(c):
    b = torch.nn.BatchNorm2d(c)
    with torch.no_grad():
        b.weight.uniform_(0.5, 2.0)
        b.bias.uniform_(-0.5, 0.5)
        b.running_mean.uniform_(-0.2, 0.2)
        b.running_var.uniform_(0.5, 2.0)
    return b


class Block(torch.nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = torch.nn.Conv2d(cin, cout, 3, stride, 1, bias=False), bn(cout)
        self.conv2, self.bn2 = torch.nn.Conv2d(cout, cout, 3, 1, 1, bias=False), bn(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = torch.nn.Sequential(torch.nn.Conv2d(cin, cout, 1, stride, bias=False), bn(cout))

    def forward(self, x):
        y = self.bn2(self.conv2(torch.relu(self.bn1(self.conv1(x)))))
        return torch.relu(y + (self.down(x) if self.down is not None else x))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.b1, self.b2 = Block(16, 16, 1), Block(16, 32, 2)

    def forward(self, x):
        return self.b2(self.b1(x))


m = Net().eval()
rng = np.random.default_rng(15)
x = rng.standard_normal((1, 16, 16, 16)).astype(np.float32)
with torch.no_grad():
    ref = m(torch.from_numpy(x)).numpy()
torch.onnx.export(m, torch.from_numpy(x), os.path.join(here, "residual_model.onnx"), input_names=["x"],
                  output_names=["y"], opset_version=13)
np.save(os.path.join(here, "residual_x.npy"), x)
np.save(os.path.join(here, "residual_ref.npy"), ref)
