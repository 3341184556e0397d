#!/usr/bin/python3
"""Train the shipped small CNN on Fashion-MNIST and export it to ONNX.

Run with Debian's python (python3-torch, python3-onnx, dataset-fashion-mnist):

    /usr/bin/python3 models/fmnist/train.py

Writes, next to this script:
  fmnist_cnn.onnx      the trained fp32 model (opset 13), input "image" [N,1,28,28] float in [0,1]
  test_images.npy      the first N_TEST test images, uint8 [N_TEST,28,28]
  test_labels.npy      their labels, uint8 [N_TEST]
  torch_logits.npy     torch's fp32 logits for them, float32 [N_TEST,10]
  calib_images.npy     N_CALIB training images for int8 calibration, uint8 [N_CALIB,28,28]

The files are committed (small) so `make run` does not need torch. Training is seeded; the
architecture is chosen for the accelerator: channel counts are multiples of 16 (BLOCK) after the
first conv, 3x3 convs with BatchNorm (folded by the compiler) and ReLU, 2x2 max pooling, global
average pooling and one dense layer.
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
EPOCHS = int(os.environ.get("EPOCHS", "6"))


def read_idx(name):
    """IDX format: magic (0,0,type,ndim), ndim big-endian u32 dims, then the data."""
    with gzip.open(os.path.join(DATA, name), "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = struct.unpack(">" + "I" * ndim, raw[4 : 4 + 4 * ndim])
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1, bias=False), nn.BatchNorm2d(16), nn.ReLU(),
            nn.MaxPool2d(2),                                    # 16x14x14
            nn.Conv2d(16, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
            nn.MaxPool2d(2),                                    # 32x7x7
            nn.Conv2d(32, 64, 3, padding=1, bias=False), nn.BatchNorm2d(64), nn.ReLU(),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)                     # GlobalAveragePool
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.features(x))
        return self.fc(torch.flatten(x, 1))


def train_and_export(net, here, onnx_name, lr, threads, epochs):
    """Seeded Adam + one-cycle training of net on the Fashion-MNIST training images (batches of
    128, test accuracy after each epoch on stderr), then the ONNX export and the shipped files
    into here (the module docstring's list; models/fmnist_mbv2/train.py uses it too). net is
    built by the caller after the seeds are set (seed_all)."""
    torch.set_num_threads(threads)
    xtr = read_idx("train-images-idx3-ubyte.gz")
    ytr = read_idx("train-labels-idx1-ubyte.gz")
    xte = read_idx("t10k-images-idx3-ubyte.gz")
    yte = read_idx("t10k-labels-idx1-ubyte.gz")
    tr = torch.from_numpy(xtr.astype(np.float32) / 255.0).unsqueeze(1)
    ltr = torch.from_numpy(ytr.astype(np.int64))
    te = torch.from_numpy(xte.astype(np.float32) / 255.0).unsqueeze(1)

    opt = torch.optim.Adam(net.parameters(), lr=lr)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=epochs * ((len(tr) + 127) // 128))
    lossf = nn.CrossEntropyLoss()
    for epoch in range(epochs):
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
        print(f"epoch {epoch + 1}/{epochs}: loss {loss.item():.3f}, test accuracy {acc * 100:.2f}%",
              file=sys.stderr)

    net.eval()
    with torch.no_grad():
        logits = net(te[:N_TEST]).numpy().astype(np.float32)
    torch.onnx.export(net, te[:1], os.path.join(here, onnx_name), opset_version=13,
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}})
    np.save(os.path.join(here, "test_images.npy"), xte[:N_TEST])
    np.save(os.path.join(here, "test_labels.npy"), yte[:N_TEST])
    np.save(os.path.join(here, "torch_logits.npy"), logits)
    np.save(os.path.join(here, "calib_images.npy"), xtr[:N_CALIB])
    top1 = (logits.argmax(1) == yte[:N_TEST]).mean()
    print(f"exported; fp32 top-1 on the {N_TEST} shipped test images: {top1 * 100:.1f}%", file=sys.stderr)


def seed_all():
    torch.manual_seed(0)
    np.random.seed(0)


def main():
    seed_all()
    train_and_export(Net(), HERE, "fmnist_cnn.onnx", 3e-3, 2, EPOCHS)


if __name__ == "__main__":
    main()
