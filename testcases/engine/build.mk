# testcases/engine: the test engines (build/miniengine, build/launchstorm, build/apitour,
# build/xidengine) and the
# GPU-validation helpers (build/gpu/...).  See docs/ENGINES.md and docs/GPU-VALIDATION.md.
#
# The kernels come from testcases/engine/kernels.cu through `nvcc -ptx -arch=sm_90`; when nvcc is
# absent (or ENGINE_PTX=committed) the committed testcases/engine/kernels.ptx is used instead.
# The PTX is embedded into each program with .incbin (kernels_blob.S).  Programs link against
# the toolkit's stub libcuda.so (SONAME libcuda.so.1), so the same binary runs on the simulated
# driver (LD_LIBRARY_PATH=build/sim) and on a real one.

ENGINE_DIR     := testcases/engine
ENGINE_OBJ     := $(BUILD)/obj/$(ENGINE_DIR)
ENGINE_GEN     := $(BUILD)/gen/engine
ENGINE_PTX_OUT := $(ENGINE_GEN)/kernels.ptx
ENGINE_LIBS    := -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread -ldl
ENGINE_PTX     ?= $(if $(wildcard $(NVCC)),nvcc,committed)

ifeq ($(ENGINE_PTX),nvcc)
$(ENGINE_PTX_OUT): $(ENGINE_DIR)/kernels.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=sm_90 -o $@ $<
else
$(ENGINE_PTX_OUT): $(ENGINE_DIR)/kernels.ptx
	@mkdir -p $(dir $@)
	cp $< $@
endif

# Refresh the committed fallback after editing kernels.cu (tests/engine checks they agree).
.PHONY: engine-ptx-update
engine-ptx-update: $(ENGINE_PTX_OUT)
	cp $(ENGINE_PTX_OUT) $(ENGINE_DIR)/kernels.ptx

$(ENGINE_OBJ)/kernels_blob.o: $(ENGINE_DIR)/kernels_blob.S $(ENGINE_PTX_OUT)
	@mkdir -p $(dir $@)
	$(CC) -c -DKERNELS_PTX='"$(ENGINE_PTX_OUT)"' -o $@ $<

$(ENGINE_OBJ)/%.o: $(ENGINE_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

# drv_direct.c a second time, with cuda.h's per-thread-default-stream mapping.
$(ENGINE_OBJ)/drv_direct_ptsz.o: $(ENGINE_DIR)/drv_direct.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DCUDA_API_PER_THREAD_DEFAULT_STREAM $(CFLAGS) -MMD -MP -c $< -o $@

ENGINE_COMMON := $(addprefix $(ENGINE_OBJ)/,engine.o drv.o drv_direct.o drv_direct_ptsz.o \
		 kernels_blob.o)

$(BUILD)/miniengine: $(ENGINE_OBJ)/miniengine.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

$(BUILD)/launchstorm: $(ENGINE_OBJ)/launchstorm.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

$(BUILD)/apitour: $(ENGINE_OBJ)/apitour.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

$(BUILD)/graphengine: $(ENGINE_OBJ)/graphengine.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

$(BUILD)/xidengine: $(ENGINE_OBJ)/xidengine.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

# ncclengine reaches NCCL by dlopen (as vLLM); ncclengine-linked is linked with -lnccl (as
# PyTorch), against the simulated NCCL's SONAME, so it runs on whichever libnccl.so.2 comes first.
$(BUILD)/ncclengine: $(ENGINE_OBJ)/ncclengine.o $(ENGINE_COMMON)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(ENGINE_LIBS)

$(ENGINE_OBJ)/ncclengine_linked.o: $(ENGINE_DIR)/ncclengine.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DNCCLENGINE_LINKED $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/ncclengine-linked: $(ENGINE_OBJ)/ncclengine_linked.o $(ENGINE_COMMON) $(SIM_NCCL_LIB)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(ENGINE_OBJ)/ncclengine_linked.o $(ENGINE_COMMON) \
		-L$(BUILD)/sim -l:libnccl.so.2 $(ENGINE_LIBS)

ENGINE_PROGS := $(BUILD)/miniengine $(BUILD)/launchstorm $(BUILD)/graphengine $(BUILD)/xidengine \
		$(BUILD)/ncclengine $(BUILD)/ncclengine-linked \
		$(if $(wildcard $(ENGINE_DIR)/apitour.c),$(BUILD)/apitour)
ALL += $(ENGINE_PROGS)

-include $(ENGINE_OBJ)/*.d

# Test helpers (tests/engine): launchspy, preloaded into the engines to see what reaches the
# driver.  Built without sanitizers: it is preloaded, and must not bring its own runtime.
ENGINE_TESTS := $(BUILD)/tests/engine
$(ENGINE_TESTS)/liblaunchspy.so: tests/engine/launchspy.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 $(WARNINGS) -fPIC -shared -o $@ $< -ldl
TEST_DEPS += $(ENGINE_TESTS)/liblaunchspy.so

# ncclslow (tests/merge), preloaded after the recorder into ncclengine-linked: holds one
# all-reduce back after NCCL accepted it (nccl-view.t).
$(BUILD)/tests/merge/libncclslow.so: tests/merge/ncclslow.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -O2 -g -std=gnu11 $(WARNINGS) -fPIC -shared -o $@ $< -ldl
TEST_DEPS += $(BUILD)/tests/merge/libncclslow.so
include testcases/gpu/build.mk
