#!/usr/bin/env python3
"""Write stem_model.onnx: a small ResNet-like stem, for tests/e2e/test_stem.sh (pass s2d,
compiler/passes/s2d.c: the stride-2 conv on 3 channels as SpaceToDepth + a stride-1 conv on 12).
Also stem_x.npy (one input [1, 3, 32, 32]), stem_calib.npy (8 calibration samples [8, 3, 32, 32])
and stem_ref.npy (torch's fp32 output for stem_x), float32.

    x [1,3,32,32] -> Conv 3->16 7x7 stride 2 pad 3 -> Relu -> MaxPool 3x3 stride 2 pad 1
      -> Conv 16->16 3x3 pad 1 -> y [1,16,8,8]

Exported by torch (torch.onnx.export, opset 13; Debian's python3-torch). Run from the repository
root:
    /usr/bin/python3 tests/e2e/data/gen_stem_model.py
"""
import os

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(15)


class Stem(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 7, stride=2, padding=3)
        self.pool = torch.nn.MaxPool2d(3, stride=2, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 16, 3, padding=1)

    def forward(self, x):
        return self.conv2(self.pool(torch.relu(self.conv1(x))))


m = Stem().eval()
rng = np.random.default_rng(15)
x = rng.standard_normal((1, 3, 32, 32)).astype(np.float32)
calib = rng.standard_normal((8, 3, 32, 32)).astype(np.float32)
with torch.no_grad():
    ref = m(torch.from_numpy(x)).numpy()
torch.onnx.export(m, torch.from_numpy(x), os.path.join(here, "stem_model.onnx"), input_names=["x"], output_names=["y"],
                  opset_version=13)
np.save(os.path.join(here, "stem_x.npy"), x)
np.save(os.path.join(here, "stem_calib.npy"), calib)
np.save(os.path.join(here, "stem_ref.npy"), ref)
