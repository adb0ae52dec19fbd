# bench/python/: what recording Python frames adds per launch (docs/PERFORMANCE.md,
# "Python frames").  pyembed embeds Debian's libpython3.11 (python3.11-dev) and launches from C
# with the Python frames fixed; without those headers only the ctypes figures are taken.
PY_EMBED_CFLAGS := $(shell python3.11-config --includes 2>/dev/null)
PY_EMBED_LIBS   := $(shell python3.11-config --ldflags --embed 2>/dev/null)
$(BUILD)/bench/python/pyembed: bench/python/pyembed.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PY_EMBED_CFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -Wno-missing-prototypes \
		-Wno-strict-prototypes -o $@ $< $(PY_EMBED_LIBS) -L$(CUDA_HOME)/lib64/stubs -lcuda

.PHONY: bench-python
bench-python: $(BUILD)/libcudainspect-rec.so $(BUILD)/sim/libcuda.so.1 \
		$(if $(PY_EMBED_LIBS),$(BUILD)/bench/python/pyembed)
	@CI_BUILD=$(abspath $(BUILD)) bench/python/run.sh

BENCH_TARGETS += bench-python
