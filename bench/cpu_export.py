#!/usr/bin/python3
"""Export torchvision's ResNet-18 and MobileNetV2 (seeded random weights, eval mode, opset 13) for
`make bench-cpu` (bench/cpu.sh). Debian's python3-torch/torchvision, no download (weights=None).

    /usr/bin/python3 bench/cpu_export.py OUT_DIR

Writes OUT_DIR/NAME.onnx (input "image" [1,3,224,224], output "logits" [1,1000]) and
OUT_DIR/NAME_input.npy (one seeded float32 input) for NAME in resnet18, mobilenet_v2.
BatchNorm statistics are seeded non-trivial values (folded into the convs by the exporter),
as models/zoo/export.py seeds them (its seed_weights).
"""
import os
import sys

import numpy as np
import torch
import torchvision

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "models", "zoo"))
from export import seed_weights  # noqa: E402  (models/zoo/export.py)


def export(name, out):
    torch.manual_seed(0)
    net = getattr(torchvision.models, name)(weights=None)
    seed_weights(net)
    net.eval()
    x = torch.randn(1, 3, 224, 224)
    torch.onnx.export(net, x, os.path.join(out, name + ".onnx"), opset_version=13, input_names=["image"],
                      output_names=["logits"], do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
    np.save(os.path.join(out, name + "_input.npy"), x.numpy().astype(np.float32))


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join("build", "bench-cpu")
    os.makedirs(out, exist_ok=True)
    torch.set_num_threads(2)
    for name in ("resnet18", "mobilenet_v2"):
        export(name, out)
        print("cpu_export.py: wrote %s/%s.onnx" % (out, name))


if __name__ == "__main__":
    main()
