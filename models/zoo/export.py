#!/usr/bin/python3
"""Export torchvision's classification models with seeded random weights to ONNX (`make test-zoo`).

Run with Debian's python (python3-torch 1.13, python3-torchvision 0.14; no download, weights=None):

    /usr/bin/python3 models/zoo/export.py --list            the models, cheapest first (one a line:
                                                            NAME PARAMS INPUT_SIZE)
    /usr/bin/python3 models/zoo/export.py NAME [OUT_ROOT]   export one (OUT_ROOT default build/zoo)

Writes into OUT_ROOT/NAME/ (never committed):
  model.onnx     opset 13, input "image" [1,3,S,S] float (S = 224; inception_v3 299), output
                 "logits" [1,1000]; eval mode (BatchNorm folded into the convolutions by the exporter)
  input.npy      one seeded input, float32 [1,3,S,S] (normal, like a normalized image)
  torch_out.npy  torch's fp32 output for it, float32 [1,1000] (the reference)
  calib.npy      4 other seeded inputs, float32 [4,3,S,S] (int8 calibration, not the input)
  meta.json      name, parameters, input shape, torch and torchvision versions
When the exporter fails, OUT_ROOT/NAME/export_error.txt holds its last error line and the exit
status is 1 (the zoo table reports it; nothing is skipped silently).

Weights: torchvision's default initialization under torch.manual_seed(0), then made non-trivial
where that initialization is degenerate for a numerical check: BatchNorm running statistics and
affine parameters seeded (as models/resnet18/export.py), weights that are initialized to all zeros
(ViT's classifier head) drawn from N(0, 0.02), and ConvNeXt's layer scales (1e-6, which would make
every block nearly the identity) drawn from U(0.05, 0.15).

Exporter gap: torch 1.13 has no ONNX rule for `aten::zero` (`Tensor.zero_()`), which swin_v2's
attention applies to the key part of its qkv bias; `zero_symbolic` below exports it as a
multiplication by 0 (the same values: the bias is finite), registered for opset 13 (no other model
of the zoo exports aten::zero).
"""
import json
import os
import sys
import traceback

import numpy as np
import torch
import torchvision

SIZE = {"inception_v3": 299}
N_CALIB = 4


def models():
    """(name, parameter count) of every classification builder, cheapest (fewest parameters) first."""
    out = []
    for name in torchvision.models.list_models(module=torchvision.models):
        try:
            n = torchvision.models.get_model_weights(name).DEFAULT.meta["num_params"]
        except Exception:  # a builder without weights metadata: last
            n = 1 << 40
        out.append((name, n))
    return sorted(out, key=lambda t: (t[1], t[0]))


def seed_weights(net):
    """Make the seeded default initialization non-degenerate (see the module docstring)."""
    with torch.no_grad():
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.1, 0.1)
                m.running_var.uniform_(0.5, 1.5)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.1, 0.1)
        for name, p in net.named_parameters():
            if "layer_scale" in name:
                p.uniform_(0.05, 0.15)
            elif p.dim() >= 2 and not p.any():
                p.normal_(0.0, 0.02)


def zero_symbolic(g, self):
    """aten::zero (x.zero_()) as x * 0 (torch 1.13's exporter has no rule; swin_v2)."""
    return g.op("Mul", self, g.op("Constant", value_t=torch.tensor(0.0)))


def export(name, out):
    os.makedirs(out, exist_ok=True)
    for f in ("model.onnx", "export_error.txt"):
        if os.path.exists(os.path.join(out, f)):
            os.remove(os.path.join(out, f))
    torch.manual_seed(0)
    torch.set_num_threads(1)  # 2 threads on 2 shared cores ran ~10x slower
    net = torchvision.models.get_model(name, weights=None)
    seed_weights(net)
    net.eval()
    s = SIZE.get(name, 224)
    x = torch.randn(1, 3, s, s)
    with torch.no_grad():
        y = net(x)
    gen = torch.Generator().manual_seed(1)
    c = torch.randn(N_CALIB, 3, s, s, generator=gen)
    np.save(os.path.join(out, "input.npy"), x.numpy().astype(np.float32))
    np.save(os.path.join(out, "torch_out.npy"), y.numpy().astype(np.float32))
    np.save(os.path.join(out, "calib.npy"), c.numpy().astype(np.float32))
    meta = {"name": name, "params": sum(p.numel() for p in net.parameters()), "input": [1, 3, s, s],
            "torch": torch.__version__, "torchvision": torchvision.__version__}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f)
    path = os.path.join(out, "model.onnx")
    torch.onnx.register_custom_op_symbolic("aten::zero", zero_symbolic, 13)
    try:
        torch.onnx.export(net, x, path, opset_version=13, input_names=["image"], output_names=["logits"],
                          do_constant_folding=True, training=torch.onnx.TrainingMode.EVAL)
    except Exception as e:  # the exporter's refusal is a finding: keep its line
        traceback.print_exc()
        line = (str(e).strip().splitlines() or [type(e).__name__])[0]
        with open(os.path.join(out, "export_error.txt"), "w") as f:
            f.write("%s: %s\n" % (type(e).__name__, line[:300]))
        if os.path.exists(path):
            os.remove(path)
        return 1
    print("export.py: %s: %.1f M parameters, input %s, %s (%.1f MB)"
          % (name, meta["params"] / 1e6, "x".join(map(str, meta["input"])), path, os.path.getsize(path) / 1e6),
          file=sys.stderr)
    return 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--list":
        for name, n in models():
            print(name, n, SIZE.get(name, 224))
        return 0
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    name = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.join("build", "zoo")
    if name not in torchvision.models.list_models(module=torchvision.models):
        print("export.py: %s is not a torchvision classification model" % name, file=sys.stderr)
        return 2
    return export(name, os.path.join(root, name))


if __name__ == "__main__":
    sys.exit(main())
