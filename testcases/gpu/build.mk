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

# Preloaded into programs that are not instrumented: never built with sanitizers.
$(GPU_OUT)/libprocaddr-log.so: $(GPU_DIR)/procaddr_log.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 $(WARNINGS) -fPIC -shared -o $@ $< -ldl

ALL += $(GPU_OUT)/crumbbench $(GPU_OUT)/libprocaddr-log.so

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
