# testcases/gpu: helpers of the GPU validation run (docs/GPU-VALIDATION.md), included from
# testcases/engine/build.mk.  crumbbench and libprocaddr-log.so are built by `make`; the cudart
# probes need nvcc and are built by `make gpu-prep`, which also builds everything run.sh uses.

GPU_DIR := testcases/gpu
GPU_OUT := $(BUILD)/gpu

$(ENGINE_OBJ)/gpu/crumbbench.o: $(GPU_DIR)/crumbbench.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(ENGINE_DIR) $(CFLAGS) -MMD -MP -c $< -o $@

$(GPU_OUT)/crumbbench: $(ENGINE_OBJ)/gpu/crumbbench.o $(ENGINE_COMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

# costprobe: each kind of driver call's cost without the recorder (the cost model's table).
$(ENGINE_OBJ)/gpu/costprobe.o: $(GPU_DIR)/costprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(ENGINE_DIR) $(CFLAGS) -MMD -MP -c $< -o $@

$(GPU_OUT)/costprobe: $(ENGINE_OBJ)/gpu/costprobe.o $(ENGINE_COMMON)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

# Preloaded into programs that are not instrumented: never built with sanitizers.
$(GPU_OUT)/libprocaddr-log.so: $(GPU_DIR)/procaddr_log.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 $(WARNINGS) -fPIC -shared -o $@ $< -ldl

ALL += $(GPU_OUT)/crumbbench $(GPU_OUT)/costprobe $(GPU_OUT)/libprocaddr-log.so

# cudart programs (static, shared, per-thread default stream) whose bootstrap the GPU run logs.
# nvcc -arch=sm_90 embeds sm_90 SASS and PTX.  The shared one finds libcudart.so.13 next to it.
GPU_PROBES := $(GPU_OUT)/cudart_probe_static $(GPU_OUT)/cudart_probe_shared \
	      $(GPU_OUT)/cudart_probe_ptds
$(GPU_OUT)/cudart_probe_static: $(GPU_DIR)/cudart_probe.cu
	@mkdir -p $(dir $@)
	$(NVCC) -arch=sm_90 -cudart static -o $@ $<
$(GPU_OUT)/cudart_probe_ptds: $(GPU_DIR)/cudart_probe.cu
	@mkdir -p $(dir $@)
	$(NVCC) -arch=sm_90 -cudart static --default-stream per-thread -o $@ $<
$(GPU_OUT)/cudart_probe_shared: $(GPU_DIR)/cudart_probe.cu
	@mkdir -p $(dir $@)/lib
	cp -L $(CUDA_HOME)/lib64/libcudart.so.13 $(dir $@)/lib/
	$(NVCC) -arch=sm_90 -cudart shared -Xlinker -rpath='$$ORIGIN/lib' -o $@ $<

.PHONY: gpu-prep
gpu-prep: all $(GPU_PROBES)

-include $(ENGINE_OBJ)/gpu/*.d

# A minimal copy of what run.sh needs (about 7 MiB), to carry to a GPU machine instead of all
# of build/: `make gpu-bundle`, carry build-gpu, run `BUILD=build-gpu testcases/gpu/run.sh`.
# The reader's shared libraries (elfutils, zstd, jansson for merge, ...) go to build-gpu/lib,
# which the bundle's cudainspect finds through its run path ($ORIGIN/lib), for machines without
# them; glibc itself must be 2.34 or newer there.
GPU_BUNDLE ?= build-gpu
.PHONY: gpu-bundle
gpu-bundle: gpu-prep $(CLI_OBJS) $(BUILD)/libcudainspect.a $(BUILD)/bench/recorder/launchbench \
		$(BUILD)/bench/recorder/libcudainspect-rec-interposed.so
	rm -rf $(GPU_BUNDLE) && mkdir -p $(GPU_BUNDLE)/gpu/lib $(GPU_BUNDLE)/lib
	cp $(BUILD)/miniengine $(BUILD)/launchstorm $(BUILD)/apitour $(BUILD)/graphengine \
	   $(BUILD)/bench/recorder/launchbench $(BUILD)/libcudainspect-rec.so \
	   $(BUILD)/bench/recorder/libcudainspect-rec-interposed.so $(GPU_BUNDLE)/
	# The CLI again, with its run path at its own lib/ (no LD_LIBRARY_PATH for the programs it
	# starts to inherit).
	$(CC) $(CFLAGS) $(LDFLAGS) -Wl,-rpath,'$$ORIGIN/lib' -o $(GPU_BUNDLE)/cudainspect $(CLI_OBJS) \
		$(BUILD)/libcudainspect.a $(READER_LIBS)
	cp $(GPU_OUT)/crumbbench $(GPU_OUT)/costprobe $(GPU_OUT)/libprocaddr-log.so $(GPU_PROBES) $(GPU_BUNDLE)/gpu/
	cp $(GPU_OUT)/lib/libcudart.so.13 $(GPU_BUNDLE)/gpu/lib/
	ldd $(BUILD)/cudainspect $(BUILD)/libcudainspect-rec.so | awk '$$3 ~ /^\// { print $$3 }' | \
		grep -Ev '/(libc|libm|libpthread|libdl|librt|libgcc_s|libstdc\+\+)\.so|/ld-linux' | \
		sort -u | xargs -r cp -L -t $(GPU_BUNDLE)/lib/
	@echo "gpu-bundle: $(GPU_BUNDLE) is $$(du -sh $(GPU_BUNDLE) | cut -f1); carry it and run" \
	      "BUILD=$(GPU_BUNDLE) testcases/gpu/run.sh"
