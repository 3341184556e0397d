#!/usr/bin/env python3
"""Write upsample.onnx: a U-Net / FPN-style decoder fragment whose nearest 2x upsampling sits
between accelerator convolutions (torch.onnx.export, opset 13: Resize, mode nearest, scales
[1, 1, 2, 2], coordinate_transformation_mode asymmetric, nearest_mode floor):

    x [1,8,14,14] -> a = Relu(Conv3x3 8->32, pad 1) [1,32,14,14]
                  -> u = Upsample(a, 2, nearest) [1,32,28,28]
                  -> y = Conv3x3 32->16, pad 1 [1,16,28,28]

and upsample9.onnx, the same network exported at opset 9 (an Upsample node, which the importer
turns into that Resize). Also upsample_calib.npy (8 seeded samples [8,1,8,14,14]), upsample_x.npy
(one input) and upsample_y.npy (its fp32 output computed by torch: the independent reference).
Seeded; run from the repository root:  /usr/bin/python3 tests/vta/data/gen_upsample_model.py
"""
import os

import numpy as np
import torch
from torch import nn

D = os.path.dirname(os.path.abspath(__file__))
torch.manual_seed(2026)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Conv2d(8, 32, 3, padding=1)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.out = nn.Conv2d(32, 16, 3, padding=1)

    def forward(self, x):
        return self.out(self.up(torch.relu(self.a(x))))


m = Decoder().eval()
rng = np.random.default_rng(2026)
x = rng.standard_normal((1, 8, 14, 14)).astype(np.float32)
with torch.no_grad():
    y = m(torch.from_numpy(x)).numpy()
    for name, opset in (("upsample.onnx", 13), ("upsample9.onnx", 9)):
        torch.onnx.export(m, torch.from_numpy(x), os.path.join(D, name), opset_version=opset, input_names=["x"],
                          output_names=["y"])
np.save(os.path.join(D, "upsample_x.npy"), x)
np.save(os.path.join(D, "upsample_calib.npy"), rng.standard_normal((8, 1, 8, 14, 14)).astype(np.float32))
np.save(os.path.join(D, "upsample_y.npy"), y.astype(np.float32))
