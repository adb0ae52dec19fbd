# tests/hostside/: programs that crash without the recorder, for the host-side report of their
# cores (corefile/hostside.c, tests/hostside/norecord.t).  Linked against the driver's stub
# library; run on the simulated driver.
HS_TEST := $(BUILD)/tests/hostside

$(HS_TEST)/assertprobe: tests/hostside/assertprobe.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda -lpthread

$(HS_TEST)/throwprobe: tests/hostside/throwprobe.cc
	@mkdir -p $(dir $@)
	$(CXX) -D_GNU_SOURCE -I$(CUDA_HOME)/include -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
		$(LDFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda

TEST_DEPS += $(HS_TEST)/assertprobe $(HS_TEST)/throwprobe
