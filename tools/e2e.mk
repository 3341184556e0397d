# tools/e2e.mk: the model evaluation layer (included from tools/tools.mk).
#   ovta eval           tools/ovta/cmd_eval.c (+ progress.c): fp32 vs int8 accuracy of a classifier
#   tools/run-main.sh   `make run` (Makefile): `ovta eval` on the shipped Fashion-MNIST model
#   tests/e2e/          end-to-end test of `ovta eval`, and of depthwise / grouped convs on the
#                       accelerator (test_dwconv.sh, data/) (in `make test`)
# and the targets bench-resnet18, test-ort and test-zoo below.
OVTA_TOOL_SRCS += tools/ovta/cmd_eval.c tools/ovta/progress.c

TESTS += $(B)/tests/e2e/test_e2e $(B)/tests/e2e/test_dwconv

$(B)/tests/e2e/test_e2e: tests/e2e/test_e2e.sh $(B)/ovta
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/e2e/test_e2e.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

# depthwise / grouped convs: int8 on the cpu path = on the accelerator (tests/e2e/data/dw_model.onnx)
$(B)/tests/e2e/test_dwconv: tests/e2e/test_dwconv.sh $(B)/ovta $(B)/ovta-opt
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash "%s/tests/e2e/test_dwconv.sh" "%s/$(B)/ovta" "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@

.PHONY: bench-resnet18 bench-tfidf test-ort test-zoo

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
