#!/usr/bin/env python3
"""Write concat.onnx: an Inception-style block whose channel Concat sits between accelerator
convolutions (torch.onnx.export, opset 12):

    x [1,8,12,12] -> a = Relu(Conv1x1 8->16)                  \\
                  -> b = Relu(Conv3x3 8->16, pad 1)             -> Concat(a, b, c) [1,48,12,12]
       a -> c = MaxPool(3, stride 1, pad 1)                     /
    -> MaxPool(3, stride 2, ceil_mode) [1,48,6,6] -> Conv3x3 48->16, pad 1 -> y [1,16,6,6]

Also concat_calib.npy (8 seeded samples [8,1,8,12,12]), concat_x.npy (one input) and
concat_y.npy (its fp32 output computed by torch: the independent reference). Seeded; run from
the repository root:  /usr/bin/python3 tests/vta/data/gen_concat_model.py
"""
import os

import numpy as np
import torch
from torch import nn

D = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(2026)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(8, 16, 1)
        self.b = nn.Conv2d(8, 16, 3, padding=1)
        self.pool_c = nn.MaxPool2d(3, stride=1, padding=1)
        self.pool = nn.MaxPool2d(3, stride=2, ceil_mode=True)
        self.out = nn.Conv2d(48, 16, 3, padding=1)

    def forward(self, x):
        a = torch.relu(self.a(x))
        b = torch.relu(self.b(x))
        c = self.pool_c(a)
        return self.out(self.pool(torch.cat([a, b, c], 1)))


m = Block().eval()
rng = np.random.default_rng(2026)
x = rng.standard_normal((1, 8, 12, 12)).astype(np.float32)
with torch.no_grad():
    y = m(torch.from_numpy(x)).numpy()
    torch.onnx.export(m, torch.from_numpy(x), os.path.join(D, "concat.onnx"), opset_version=12, input_names=["x"],
                      output_names=["y"])
np.save(os.path.join(D, "concat_x.npy"), x)
np.save(os.path.join(D, "concat_calib.npy"), rng.standard_normal((8, 1, 8, 12, 12)).astype(np.float32))
np.save(os.path.join(D, "concat_y.npy"), y.astype(np.float32))
