#!/usr/bin/python3
"""Export torchvision's ResNet-18 with seeded random weights to ONNX (for `make bench-resnet18`).

Run with Debian's python (python3-torch, python3-torchvision; no download, weights=None):

    /usr/bin/python3 models/resnet18/export.py [OUT_DIR]      (default: build/resnet18)

Writes into OUT_DIR (the model is ~45 MB: it lives in build/ and is never committed):
  resnet18.onnx     opset 13, input "image" [1,3,224,224] float, output "logits" [1,1000];
                    eval mode (BatchNorm folded into the convolutions by the exporter)
  input.npy         one seeded input image, float32 [1,3,224,224] (normal, like a normalized image)
  torch_out.npy     torch's fp32 output for it, float32 [1,1000] (the reference for the bench)
  calib.npy         4 more seeded inputs, float32 [4,3,224,224] (int8 calibration, not the input)
  calib_out.npy     torch's fp32 output for them, float32 [4,1000]

The weights are torchvision's default initialization under torch.manual_seed(0); the BatchNorm
running statistics are set to seeded non-trivial values so the folded convolutions are not
plain copies of the initial weights.
"""
import os
import sys

import numpy as np
import torch
import torchvision


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "resnet18")
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(2)
    net = torchvision.models.resnet18(weights=None)
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
    net.eval()
    x = torch.randn(1, 3, 224, 224)
    with torch.no_grad():
        y = net(x)
    path = os.path.join(out, "resnet18.onnx")
    torch.onnx.export(net, x, path, opset_version=13, input_names=["image"], output_names=["logits"],
                      do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
    np.save(os.path.join(out, "input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out, "torch_out.npy"), y.numpy().astype(np.float32))
    gen = torch.Generator().manual_seed(1)
    c = torch.randn(4, 3, 224, 224, generator=gen)
    with torch.no_grad():
        yc = net(c)
    np.save(os.path.join(out, "calib.npy"), c.numpy().astype(np.float32))
    np.save(os.path.join(out, "calib_out.npy"), yc.numpy().astype(np.float32))
    print("export.py: wrote %s (%.1f MB), input.npy, torch_out.npy, calib.npy, calib_out.npy" % (path, os.path.getsize(path) / 1e6))


if __name__ == "__main__":
    main()
