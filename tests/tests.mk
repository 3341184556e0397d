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

# FileCheck tests (tests/filecheck/*.json, *.test; tests/codegen/filecheck/*.json;
# tests/vta/*.test), run by tests/filecheck/run.sh through wrappers that tests/run.sh runs like
# any test binary.
FILECHECK_RUNNER := $(B)/tests/filecheck/run-filecheck
TESTS += $(FILECHECK_RUNNER)
$(FILECHECK_RUNNER): tests/filecheck/run.sh $(OVTA_OPT)
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\nexec bash tests/filecheck/run.sh %s "$$@"\n' '$(B)' > $@
	chmod +x $@
CODEGEN_FC := $(B)/tests/codegen/run-filecheck
TESTS += $(CODEGEN_FC)
$(CODEGEN_FC): $(B)/ovta tests/filecheck/run.sh tests/tests.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\ncd "%s" && OVTA="%s/$(B)/ovta" exec bash tests/filecheck/run.sh $(B) tests/codegen/filecheck/*.json "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
VTA_FC := $(B)/tests/vta/run-filecheck
TESTS += $(VTA_FC)
$(VTA_FC): $(OVTA_VTA) tests/filecheck/run.sh tests/tests.mk
	@mkdir -p $(dir $@)
	printf '#!/bin/sh\ncd "%s" && OVTA_VTA="%s/$(OVTA_VTA)" exec bash tests/filecheck/run.sh $(B) tests/vta/*.test "$$@"\n' "$(SRC)" "$(SRC)" > $@
	chmod +x $@
