# bench/recorder/: the recorder's overhead benchmark (`make bench`; docs/PERFORMANCE.md,
# "Recorder").  launchbench is built without sanitizers: it measures nanoseconds.
$(BUILD)/bench/recorder/launchbench: bench/recorder/launchbench.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

# ncclbench: a collective's cost, with the simulated NCCL (one rank, null mode).
$(BUILD)/bench/recorder/ncclbench: bench/recorder/ncclbench.c tests/recorder/probe.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(filter-out -fsanitize=%,$(CFLAGS)) -o $@ $< \
		-L$(CUDA_HOME)/lib64/stubs -lcuda -ldl

.PHONY: bench-recorder
bench-recorder: $(BUILD)/bench/recorder/launchbench $(BUILD)/bench/recorder/ncclbench \
		$(BUILD)/libcudainspect-rec.so $(SIM_NCCL_LIB)
	@CI_BUILD=$(abspath $(BUILD)) bench/recorder/run.sh

BENCH_TARGETS += bench-recorder

# The recorder with kernel launches recording nothing (launch.c built with
# -DCI_BENCH_INTERPOSED): what interposing the driver costs a launch by itself, the floor under
# every setting.  Only for bench-cost and the GPU bundle (setting "interposed").
REC_INTERPOSED := $(BUILD)/bench/recorder/libcudainspect-rec-interposed.so
$(BUILD)/bench/recorder/launch-interposed.o: recorder/launch.c $(REC_DEPS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(REC_CFLAGS) -DCI_BENCH_INTERPOSED -MMD -MP -c $< -o $@

$(REC_INTERPOSED): $(filter-out $(BUILD)/obj/recorder/launch.o,$(REC_OBJS)) \
		$(BUILD)/bench/recorder/launch-interposed.o $(COMMON_OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libcudainspect-rec.so -Wl,-z,defs \
		-Wl,-Bsymbolic-functions -o $@ $^ $(REC_LDLIBS)

-include $(BUILD)/bench/recorder/launch-interposed.d

# The same under the simulator's cost model of the H200 (CUDASIM_COST=h200): throughput ratios
# of launches, graph launches, allocations and Python launches (docs/PERFORMANCE.md).
.PHONY: bench-cost
bench-cost: $(BUILD)/bench/recorder/launchbench $(BUILD)/libcudainspect-rec.so $(BUILD)/launchstorm \
		$(REC_INTERPOSED)
	@CI_BUILD=$(abspath $(BUILD)) bench/recorder/cost.sh

BENCH_TARGETS += bench-cost
TEST_DEPS += $(BUILD)/bench/recorder/ncclbench
