/* What recording Python frames adds per launch, without ctypes in the way: this program embeds
 * CPython (Debian's libpython3.11), and a Python function DEPTH frames deep calls a C function
 * that launches N kernels in a C loop with the GIL released (as PyTorch's op bindings and
 * ctypes do), timed in thread CPU time; bench/python/run.sh runs it under the recorder with
 * CUDAINSPECT_PYTHON=on and =off on the simulated driver in null mode.
 *   pyembed DEPTH N REPS   prints "ns_per_launch X" (the fastest of REPS loops) */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static CUfunction fn;
static CUstream stream;
static CUdeviceptr buf;

static double thread_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static PyObject *launch_loop(PyObject *self, PyObject *arg)
{
	long n = PyLong_AsLong(arg);
	void *params[1] = { &buf };
	double t0, t1;
	CUresult r = CUDA_SUCCESS;
	Py_BEGIN_ALLOW_THREADS
	t0 = thread_ns();
	for (long i = 0; i < n && r == CUDA_SUCCESS; i++)
		r = cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, stream, params, NULL);
	t1 = thread_ns();
	Py_END_ALLOW_THREADS
	if (r != CUDA_SUCCESS)
		return PyErr_Format(PyExc_RuntimeError, "cuLaunchKernel: %d", (int)r);
	return PyFloat_FromDouble((t1 - t0) / (double)(n > 0 ? n : 1));
}

static PyMethodDef methods[] = { { "loop", launch_loop, METH_O, "launch N kernels" }, { 0 } };
static struct PyModuleDef module = { PyModuleDef_HEAD_INIT, "bench", NULL, -1, methods,
				     NULL, NULL, NULL, NULL };
static PyObject *init_bench(void) { return PyModule_Create(&module); }

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: pyembed DEPTH N REPS\n");
		return 2;
	}
	static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n"
				  ".visible .entry k(.param .u64 p) { ret; }\n";
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	if (cuInit(0) || cuDeviceGet(&dev, 0) || cuDevicePrimaryCtxRetain(&ctx, dev) ||
	    cuCtxSetCurrent(ctx) || cuModuleLoadData(&mod, ptx) ||
	    cuModuleGetFunction(&fn, mod, "k") || cuStreamCreate(&stream, 0) ||
	    cuMemAlloc(&buf, 4096)) {
		fprintf(stderr, "pyembed: the driver setup failed\n");
		return 1;
	}
	PyImport_AppendInittab("bench", init_bench);
	Py_Initialize();
	char script[1024];
	snprintf(script, sizeof script,
		 "import bench\n"
		 "def at(d, n):\n"
		 "    if d > 2:\n"
		 "        return at(d - 1, n)\n"
		 "    return bench.loop(n)\n"
		 "at(%d, 1000)\n"
		 "print('ns_per_launch %%.1f' %% min(at(%d, %s) for _ in range(%s)))\n",
		 atoi(argv[1]), atoi(argv[1]), argv[2], argv[3]);
	int rc = PyRun_SimpleString(script);
	Py_Finalize();
	return rc ? 1 : 0;
}
