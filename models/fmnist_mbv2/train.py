#!/usr/bin/python3
"""Train the shipped small MobileNetV2-style network on Fashion-MNIST and export it to ONNX.

Run with Debian's python (python3-torch, python3-onnx, dataset-fashion-mnist):

    /usr/bin/python3 models/fmnist_mbv2/train.py

Writes, next to this script:
  fmnist_mbv2.onnx     the trained fp32 model (opset 13), input "image" [N,1,28,28] float in [0,1]
  test_images.npy      the first N_TEST test images, uint8 [N_TEST,28,28]
  test_labels.npy      their labels, uint8 [N_TEST]
  torch_logits.npy     torch's fp32 logits for them, float32 [N_TEST,10]
  calib_images.npy     N_CALIB training images for int8 calibration, uint8 [N_CALIB,28,28]

The files are committed (small) so nothing here needs torch to evaluate. Training is seeded. The
architecture is MobileNetV2's (inverted residual blocks: 1x1 expansion, depthwise 3x3, linear 1x1
projection, residual add when the shape allows) with MobileNetV3's additions in the last stages: one
squeeze-excite block (global average pool, 1x1 reduce, ReLU, 1x1 expand, hard-sigmoid, multiply)
and hard-swish activations. Channel counts are multiples of 16 (BLOCK) so the accelerator can take
the 1x1 convolutions and the dense layer; the depthwise convolutions (groups) stay on the CPU.
"""
import gzip
import os
import struct
import sys

import numpy as np
import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = "/usr/share/datasets/fashion-mnist"
N_TEST = 500
N_CALIB = 64
EPOCHS = int(os.environ.get("EPOCHS", "5"))
# one thread: on 2 cores shared with other jobs, torch with 2 threads ran 10x slower (0.37 s per
# batch with one, 3.7 s with two, at load 6)
THREADS = int(os.environ.get("THREADS", "1"))


def read_idx(name):
    """IDX format: magic (0,0,type,ndim), ndim big-endian u32 dims, then the data."""
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def conv_bn(cin, cout, k=1, stride=1, groups=1, act=None):
    """Conv (no bias) + BatchNorm (folded by the compiler) + optional activation."""
    layers = [nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    return nn.Sequential(*layers, act()) if act else nn.Sequential(*layers)


class SqueezeExcite(nn.Module):
    def __init__(self, c, r):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.reduce = nn.Conv2d(c, r, 1)
        self.expand = nn.Conv2d(r, c, 1)
        self.act = nn.ReLU()
        self.gate = nn.Hardsigmoid()

    def forward(self, x):
        return x * self.gate(self.expand(self.act(self.reduce(self.pool(x)))))


class InvertedResidual(nn.Module):
    """1x1 expand (act), depthwise 3x3 (act), [squeeze-excite], 1x1 project (linear); + x when shapes match."""

    def __init__(self, cin, cexp, cout, stride, act, se=False):
        super().__init__()
        self.expand = conv_bn(cin, cexp, act=act)
        self.dw = conv_bn(cexp, cexp, 3, stride, groups=cexp, act=act)
        self.se = SqueezeExcite(cexp, 16) if se else nn.Identity()
        self.project = conv_bn(cexp, cout)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        return x + y if self.residual else y


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            conv_bn(1, 16, 3, 2, act=nn.ReLU),                                # 16x14x14
            InvertedResidual(16, 48, 16, 1, nn.ReLU6),                        # 16x14x14 (+ x)
            InvertedResidual(16, 64, 32, 2, nn.ReLU6),                        # 32x7x7
            InvertedResidual(32, 96, 32, 1, nn.Hardswish, se=True),           # 32x7x7 (+ x)
            InvertedResidual(32, 96, 64, 1, nn.Hardswish),                    # 64x7x7
            conv_bn(64, 128, act=nn.Hardswish),                               # 128x7x7
        )
        self.pool = nn.AdaptiveAvgPool2d(1)                                   # GlobalAveragePool
        self.fc = nn.Linear(128, 10)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


def main():
    torch.manual_seed(0)
    np.random.seed(0)
    torch.set_num_threads(THREADS)
    xtr = read_idx("train-images-idx3-ubyte.gz")
    ytr = read_idx("train-labels-idx1-ubyte.gz")
    xte = read_idx("t10k-images-idx3-ubyte.gz")
    yte = read_idx("t10k-labels-idx1-ubyte.gz")
    tr = torch.from_numpy(xtr.astype(np.float32) / 255.0).unsqueeze(1)
    ltr = torch.from_numpy(ytr.astype(np.int64))
    te = torch.from_numpy(xte.astype(np.float32) / 255.0).unsqueeze(1)

    net = Net()
    print("parameters: %d" % sum(p.numel() for p in net.parameters()), file=sys.stderr)
    opt = torch.optim.Adam(net.parameters(), lr=4e-3)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=EPOCHS * ((len(tr) + 127) // 128))
    lossf = nn.CrossEntropyLoss()
    for epoch in range(EPOCHS):
        net.train()
        perm = torch.randperm(len(tr))
        for i in range(0, len(tr), 128):
            idx = perm[i : i + 128]
            opt.zero_grad()
            loss = lossf(net(tr[idx]), ltr[idx])
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            acc = (net(te).argmax(1).numpy() == yte).mean()
        print(f"epoch {epoch + 1}/{EPOCHS}: loss {loss.item():.3f}, test accuracy {acc * 100:.2f}%",
              file=sys.stderr)

    net.eval()
    with torch.no_grad():
        logits = net(te[:N_TEST]).numpy().astype(np.float32)
    torch.onnx.export(net, te[:1], os.path.join(HERE, "fmnist_mbv2.onnx"), opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}})
    np.save(os.path.join(HERE, "test_images.npy"), xte[:N_TEST])
    np.save(os.path.join(HERE, "test_labels.npy"), yte[:N_TEST])
    np.save(os.path.join(HERE, "torch_logits.npy"), logits)
    np.save(os.path.join(HERE, "calib_images.npy"), xtr[:N_CALIB])
    top1 = (logits.argmax(1) == yte[:N_TEST]).mean()
    print(f"exported; fp32 top-1 on the {N_TEST} shipped test images: {top1 * 100:.1f}%", file=sys.stderr)


if __name__ == "__main__":
    main()
