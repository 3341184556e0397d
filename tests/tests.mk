# tests/: one cmocka binary per tests/AREA/test_*.c, linked with libovta.a.
# Layers add further test binaries to TESTS (and libraries to TEST_LDLIBS) in their fragments.
TEST_SRCS := $(wildcard tests/*/test_*.c)
TESTS += $(TEST_SRCS:tests/%.c=$(B)/tests/%)
TEST_LDLIBS += -lcmocka

$(B)/tests/%: tests/%.c $(B)/libovta.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -MMD -MP -o $@ $< $(LIB) $(LDFLAGS) $(TEST_LDLIBS) $(LDLIBS)
