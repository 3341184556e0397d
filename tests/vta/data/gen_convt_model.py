#!/usr/bin/python3
"""Write convt.onnx: a decoder of transposed convolutions as torch 1.13 exports them (opset 13),
seeded, with torch's fp32 output as the independent reference:

    x [1,3,16,16] -> Conv(3->32, 3x3, s2, p1) -> Relu
      -> ConvTranspose(32->16, 4x4, s2, p1) -> Relu                      (16x16)
      -> ConvTranspose(16->16, 3x3, s2, p1, output_padding 1) -> Relu    (32x32)
      -> ConvTranspose(16->8, 3x3, s1, p1, groups 2) -> Relu             (32x32)
      -> ConvTranspose(8->4, 2x2, s2, p0) -> y [1,4,64,64]

Also convt_x.npy (one input), convt_y.npy (torch's output for it) and convt_calib.npy (4 seeded
samples [4,1,3,16,16]). Needs Debian's python3-torch (bench/install-torch.sh); run from the
repository root:  /usr/bin/python3 tests/vta/data/gen_convt_model.py
"""
import os

import numpy as np
import torch
import torch.nn as nn

D = os.path.dirname(os.path.abspath(__file__))


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 32, 3, stride=2, padding=1)
        self.up1 = nn.ConvTranspose2d(32, 16, 4, stride=2, padding=1)
        self.up2 = nn.ConvTranspose2d(16, 16, 3, stride=2, padding=1, output_padding=1)
        self.up3 = nn.ConvTranspose2d(16, 8, 3, stride=1, padding=1, groups=2)
        self.up4 = nn.ConvTranspose2d(8, 4, 2, stride=2, padding=0)

    def forward(self, x):
        h = torch.relu(self.c1(x))
        h = torch.relu(self.up1(h))
        h = torch.relu(self.up2(h))
        h = torch.relu(self.up3(h))
        return self.up4(h)


torch.manual_seed(2026)
m = Decoder().eval()
x = torch.randn(1, 3, 16, 16)
with torch.no_grad():
    y = m(x)
torch.onnx.export(m, x, os.path.join(D, "convt.onnx"), opset_version=13, input_names=["x"], output_names=["y"])
np.save(os.path.join(D, "convt_x.npy"), x.numpy())
np.save(os.path.join(D, "convt_y.npy"), y.numpy())
np.save(os.path.join(D, "convt_calib.npy"), torch.randn(4, 1, 3, 16, 16).numpy())
