# tests/: one cmocka binary per tests/AREA/test_*.c, linked with libovta.a.
# Layers add further test binaries to TESTS (and libraries to TEST_LDLIBS) in their fragments.
TEST_SRCS := $(wildcard tests/*/test_*.c)
TESTS += $(TEST_SRCS:tests/%.c=$(B)/tests/%)
TEST_LDLIBS += -lcmocka

$(B)/tests/%: tests/%.c $(B)/libovta.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(TEST_LDLIBS) $(LDLIBS)

# ONNX conformance runner (tests/codegen/conform_onnx.c): a plain program printing cmocka-style lines.
CONFORM_ONNX := $(B)/tests/codegen/conform_onnx
TESTS += $(CONFORM_ONNX)
$(CONFORM_ONNX): tests/codegen/conform_onnx.c $(LIB) $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -o $@ $< $(LIB) $(LDFLAGS) $(LDLIBS)
# The same runner on tests/codegen/rnn/: the RNN/GRU/LSTM cases the node tests leave out
# (bidirectional, sequence_lens, clip, activations, ...; references from onnxruntime, gen.py there).
CONFORM_RNN := $(B)/tests/codegen/conform_rnn
TESTS += $(CONFORM_RNN)
$(CONFORM_RNN): $(CONFORM_ONNX) tests/tests.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec "%s" "" "%s"\n' "$(SRC)/$(CONFORM_ONNX)" "$(SRC)/tests/codegen/rnn" > $@
	chmod +x $@

# The same runner on tests/codegen/node_extra/ (operator paths the shipped node tests miss;
# onnxruntime's outputs, made by its gen.py).
TESTS += $(B)/tests/codegen/conform_extra
$(B)/tests/codegen/conform_extra: $(CONFORM_ONNX) tests/tests.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec "%s" "$$@" "" "%s"\n' "$(SRC)/$(CONFORM_ONNX)" "$(SRC)/tests/codegen/node_extra" > $@
	chmod +x $@

# FileCheck tests: one runner (tests/filecheck/run.sh, one set of lit-style substitutions for
# every tool) and one wrapper per area, build/tests/AREA/run-filecheck, made by the one rule below;
# tests/run.sh runs the wrappers like any test binary. FILECHECK_DIR_AREA: the area's folder.
FILECHECK_DIR_filecheck := tests/filecheck
FILECHECK_DIR_codegen := tests/codegen/filecheck
FILECHECK_DIR_vta := tests/vta
FILECHECK_AREAS := filecheck codegen vta
FILECHECK_WRAPPERS := $(FILECHECK_AREAS:%=$(B)/tests/%/run-filecheck)
TESTS += $(FILECHECK_WRAPPERS)
$(FILECHECK_WRAPPERS): $(B)/tests/%/run-filecheck: tests/filecheck/run.sh tests/tests.mk $(B)/ovta $(OVTA_OPT) $(OVTA_VTA)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\n[ $$# -gt 0 ] || set -- %s\ncd "%s" && FILECHECK="%s" exec bash tests/filecheck/run.sh "%s" "$$@"\n' \
	  "$(FILECHECK_DIR_$*)" "$(SRC)" "$(FILECHECK)" "$(SRC)/$(B)" > $@
	chmod +x $@
