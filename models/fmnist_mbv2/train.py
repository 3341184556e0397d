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
import importlib.util
import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
# the data, the training loop and the export are models/fmnist/train.py's (train_and_export)
_spec = importlib.util.spec_from_file_location("fmnist_train", os.path.join(HERE, "..", "fmnist", "train.py"))
FM = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(FM)
EPOCHS = int(os.environ.get("EPOCHS", "5"))
# one thread: on 2 cores shared with other jobs, torch with 2 threads ran 10x slower (0.37 s per
# batch with one, 3.7 s with two, at load 6)
THREADS = int(os.environ.get("THREADS", "1"))


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
    FM.seed_all()
    net = Net()
    print("parameters: %d" % sum(p.numel() for p in net.parameters()), file=sys.stderr)
    FM.train_and_export(net, HERE, "fmnist_mbv2.onnx", 4e-3, THREADS, EPOCHS)


if __name__ == "__main__":
    main()
