// Kernels whose parameter lists exercise the PTX parameter layout rules: natural alignment of
// each scalar type, structs passed by value (.align A .b8 name[N]), vector types, pointers, and a
// C++ (mangled) name.  tests/sim/params.c states the layout independently with a C struct of
// the same members and compares cuFuncGetParamInfo against offsetof/sizeof.
struct small { char c; short s; };              // size 4, align 2
struct mixed { int a; double b; char c; };      // size 24, align 8
struct __align__(16) wide { float x, y, z, w; }; // size 16, align 16

extern "C" __global__ void layout_scalars(char a, double b, int *p, short h, float f,
                                          unsigned long long u, bool flag)
{
	if (p) *p = a + (int)b + h + (int)f + (int)u + flag;
}

extern "C" __global__ void layout_structs(char a, struct small s, struct mixed m, char b,
                                          struct wide w, int4 v, const float *__restrict__ in)
{
	(void)a; (void)s; (void)m; (void)b; (void)w; (void)v; (void)in;
}

__global__ void layout_mangled(int n, const float *x, float *y, float alpha)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] += alpha * x[i];
}

extern "C" __global__ void __launch_bounds__(256) layout_bounded(float *out)
{
	__shared__ float tile[64];
	tile[threadIdx.x % 64] = 1.0f;
	__syncthreads();
	out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

extern "C" __global__ void layout_empty(void) {}
