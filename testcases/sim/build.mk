# testcases/sim: the simulated CUDA driver, $(BUILD)/sim/libcuda.so.1 (docs/SIMULATOR.md), and the
# test programs of tests/sim/, which link against the toolkit's stub libcuda.so and run against
# the simulator through LD_LIBRARY_PATH=$(BUILD)/sim.
#
# -Bsymbolic-functions makes the library's own references (cuGetProcAddress's answers, internal
# calls) bind to its own definitions even when a preloaded interposer exports the same names, as
# in the real driver.  -fno-ipa-icf keeps every exported function at its own address (gcc folds
# identical functions; clang does not, and does not know the flag).

SIM_SRCS   := $(wildcard testcases/sim/*.c)
SIM_OBJS   := $(SIM_SRCS:%.c=$(BUILD)/obj/%.o)
SIM_HDRS   := testcases/sim/sim.h testcases/sim/api.def
SIM_NO_ICF := $(shell $(CC) -Werror -fno-ipa-icf -x c -c /dev/null -o /dev/null 2>/dev/null && echo -fno-ipa-icf)
SIM_CFLAGS := -fPIC -fvisibility=hidden $(SIM_NO_ICF) -pthread
SIM_LDFLAGS = -shared -pthread -Wl,-soname,libcuda.so.1 -Wl,-Bsymbolic-functions \
              -Wl,--version-script=testcases/sim/libcuda.map
SIM_LIB    := $(BUILD)/sim/libcuda.so.1

$(BUILD)/obj/testcases/sim/%.o: testcases/sim/%.c $(SIM_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SIM_CFLAGS) -MMD -MP -c $< -o $@

$(SIM_LIB): $(SIM_OBJS) testcases/sim/libcuda.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) $(SIM_LDFLAGS) -o $@ $(SIM_OBJS)

$(BUILD)/sim/libcuda.so: $(SIM_LIB)
	ln -sf libcuda.so.1 $@

ALL += $(SIM_LIB) $(BUILD)/sim/libcuda.so

# ThreadSanitizer build of the simulator, for tests/sim/tsan.t (whatever SANITIZE says).
SIM_TSAN_DIR    := $(BUILD)/tests/sim/tsan
SIM_TSAN_CFLAGS := $(filter-out -fsanitize=%,$(CFLAGS)) -O1 -fsanitize=thread
$(SIM_TSAN_DIR)/libcuda.so.1: $(SIM_SRCS) $(SIM_HDRS) testcases/sim/libcuda.map
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(SIM_TSAN_CFLAGS) $(SIM_CFLAGS) $(SIM_LDFLAGS) -o $@ $(SIM_SRCS)

# Test programs: tests/sim/*.c, one binary each, linked like an application against the stub.
SIM_TEST_SRCS := $(filter-out tests/sim/interposer.c,$(wildcard tests/sim/*.c))
SIM_TESTS     := $(SIM_TEST_SRCS:tests/sim/%.c=$(BUILD)/tests/sim/%)
SIM_TEST_LIBS := -L$(CUDA_HOME)/lib64/stubs -lcuda -ldl -pthread

$(BUILD)/tests/sim/%: tests/sim/%.c tests/sim/simtest.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(CFLAGS) $(LDFLAGS) -o $@ $< $(SIM_TEST_LIBS)

# The test programs again, built with TSan, to run against the TSan simulator (hammer.t, tsan.t).
SIM_TSAN_TESTS := $(addprefix $(SIM_TSAN_DIR)/,hammer streams capture fault)
$(SIM_TSAN_DIR)/%: tests/sim/%.c tests/sim/simtest.h tests/lib/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/lib $(SIM_TSAN_CFLAGS) -o $@ $< $(SIM_TEST_LIBS)

# A preloadable shim that exports cuLaunchKernel (procaddr.t), built without sanitizers.
$(BUILD)/tests/sim/interposer.so: tests/sim/interposer.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -fPIC -shared -o $@ $<

TEST_DEPS += $(SIM_TESTS) $(BUILD)/tests/sim/interposer.so $(SIM_TSAN_DIR)/libcuda.so.1 $(SIM_TSAN_TESTS)

# Parameter-layout fixture: PTX that nvcc writes from tests/sim/params.cu (skipped without nvcc).
ifneq ($(wildcard $(NVCC)),)
$(BUILD)/tests/sim/params.ptx: tests/sim/params.cu
	@mkdir -p $(dir $@)
	$(NVCC) -ptx -arch=sm_90 -o $@ $<
$(BUILD)/tests/sim/params.fatbin: tests/sim/params.cu
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -gencode arch=compute_90,code=compute_90 -Xfatbin -compress=false -o $@ $<
$(BUILD)/tests/sim/params.cubin: tests/sim/params.cu
	@mkdir -p $(dir $@)
	$(NVCC) -cubin -arch=sm_90 -o $@ $<
$(BUILD)/tests/sim/params.sm80.cubin: tests/sim/params.cu
	@mkdir -p $(dir $@)
	$(NVCC) -cubin -arch=sm_80 -o $@ $<
$(BUILD)/tests/sim/params.sass.fatbin: tests/sim/params.cu
	@mkdir -p $(dir $@)
	$(NVCC) -fatbin -gencode arch=compute_90,code=sm_90 -Xfatbin -compress=false -o $@ $<
TEST_DEPS += $(BUILD)/tests/sim/params.ptx $(BUILD)/tests/sim/params.fatbin $(BUILD)/tests/sim/params.cubin \
	     $(BUILD)/tests/sim/params.sm80.cubin $(BUILD)/tests/sim/params.sass.fatbin
endif

-include $(SIM_OBJS:.o=.d)

# The simulated NCCL, $(BUILD)/sim/libnccl.so.2 (docs/SIMULATOR.md, "The simulated NCCL"): the
# communicator and collective calls of nccl.h across processes over POSIX shared memory, on
# the driver API (it links against the toolkit's stub, SONAME libcuda.so.1, so it runs on the
# simulated driver next to it or on a real one).  -Bsymbolic-functions: its own calls (ncclBcast
# to the broadcast code) never reach an interposer, as in the real library.
SIM_NCCL_LIB := $(BUILD)/sim/libnccl.so.2
$(SIM_NCCL_LIB): testcases/sim/nccl/nccl.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -pthread $(LDFLAGS) -shared \
		-Wl,-soname,libnccl.so.2 -Wl,-Bsymbolic-functions -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lrt

$(BUILD)/sim/libnccl.so: $(SIM_NCCL_LIB)
	ln -sf libnccl.so.2 $@

ALL += $(SIM_NCCL_LIB) $(BUILD)/sim/libnccl.so
TEST_DEPS += $(SIM_NCCL_LIB) $(BUILD)/sim/libnccl.so
