# tests/: the build rules of the tests' own programs, one build.mk per directory (`make check`
# builds them through TEST_DEPS).
include tests/reader-input/build.mk
include tests/reader/build.mk
include tests/plugin/build.mk
include tests/hostside/build.mk
include tests/python/build.mk
include tests/gpucore/build.mk
include tests/aarch64/build.mk
