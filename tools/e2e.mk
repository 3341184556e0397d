# tools/e2e.mk: the model evaluation layer (included from tools/tools.mk).
#   ovta eval           tools/ovta/cmd_eval.c (+ progress.c): fp32 vs int8 accuracy of a classifier
#   tools/run-main.sh   `make run` (Makefile): `ovta eval` on the shipped Fashion-MNIST model
#   tests/e2e/          end-to-end test of `ovta eval`, and of depthwise / grouped convs on the
#                       accelerator (test_dwconv.sh, data/), of pass s2d on a stem (test_stem.sh), of pass im2col on two
#                       stems (test_im2col.sh), of per-channel
#                       exponents for outlier weights (test_outlier.sh), of residual blocks' adds on the
#                       accelerator (test_residual.sh), of ONNX external data (test_extdata.sh) (in `make test`)
# and the targets bench-resnet18, test-ort and test-zoo below.
OVTA_TOOL_SRCS += tools/ovta/cmd_eval.c tools/ovta/progress.c

E2E_TESTS = test_e2e test_dwconv test_stem test_im2col test_outlier test_residual test_extdata
TESTS += $(E2E_TESTS:%=$(B)/tests/e2e/%)

# each a script run with build/ovta (ovta-opt beside it): test_e2e `ovta eval`; test_dwconv
# depthwise / grouped convs, int8 on the cpu path = on the accelerator (data/dw_model.onnx);
# test_stem pass s2d on a ResNet-like stem (data/stem_model.onnx); test_im2col pass im2col on it and
# on a stride-1 stem made by numpy; test_outlier per-channel
# weight exponents for weights with an outlier (data/outlier_model.onnx); test_residual two ResNet
# basic blocks, int8 on the cpu path = the adds on the accelerator (data/residual_model.onnx);
# test_extdata ONNX external data, models made at test time (python3-onnx), hostile locations
$(E2E_TESTS:%=$(B)/tests/e2e/%): $(B)/tests/e2e/%: tests/e2e/%.sh $(B)/ovta $(B)/ovta-opt
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/e2e/$*.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

.PHONY: bench-resnet18 bench-tfidf bench-cpu test-ort test-zoo

# ResNet-18: export (installs Debian python3-torch/python3-torchvision when missing), int8 compile
# for the accelerator, one inference profiled by `ovta profile` on BACKEND (default tsim) with
# CONFIG (default default): per-layer table, total cycles (bench/resnet18.sh, bench/README.md).
## bench-resnet18 [BACKEND=tsim] [CONFIG=default]: ResNet-18 (torch export, random weights) int8 on the accelerator, profiled
bench-resnet18: all
	@bash bench/resnet18.sh $(B)

# TfIdfVectorizer on the CPU path against onnxruntime-node in one run (bench/tfidf_ort.sh).
## bench-tfidf: TfIdfVectorizer (5000-n-gram pool, skips) vs onnxruntime-node, time ratio (npm)
bench-tfidf: all
	@bash bench/tfidf_ort.sh $(B)

# The fp32 CPU path against onnxruntime-node on ResNet-18 and MobileNetV2, 1 and 2 threads (bench/cpu.sh).
## bench-cpu [REPEAT=N] [ROUNDS=K]: fp32 CPU path vs onnxruntime-node, ResNet-18 and MobileNetV2, 1 and 2 threads; int8/fp32 alternated (torch, npm)
bench-cpu: all
	@bash bench/cpu.sh $(B)

# onnxruntime-node as a reference (tools/ort-ref/; npm install into $(B)/ort-ref).
## test-ort: ovta's CPU path against onnxruntime-node (npm; not in `make test`)
test-ort: all
	@bash tools/ort-ref/test-ort.sh $(B)

# torchvision's classification zoo (models/zoo/export.py, seeded random weights) through ovta: fp32
# CPU path vs torch and onnxruntime-node, int8 on the accelerator (fsim; tsim when small): MAC share,
# cycles, cosine; the table in $(B)/zoo/table.md (tools/zoo/run.sh, tests/zoo/README.md). Hours for
# the whole zoo; ZOO_MODELS=a,b picks models.
## test-zoo [ZOO_MODELS=a,b]: torchvision zoo vs torch + onnxruntime, int8 on the accelerator (torch, npm; not in `make test`)
test-zoo: all
	@ZOO_MODELS=$(ZOO_MODELS) bash tools/zoo/run.sh $(B)

# One inference of a compiled model folder with per-step times (bench/model_profile.c).
TOOLS += $(B)/bench/model_profile
$(B)/bench/model_profile: bench/model_profile.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
