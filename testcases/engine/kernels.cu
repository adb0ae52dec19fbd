/*
 * Device code of the test engines: the kernels of a small transformer decode step (embedding
 * gather, RMS norm, a matrix-vector product, rotary embedding, KV-cache append, attention over a
 * paged KV cache, sampling) plus the helpers the scenarios need (a spin kernel for hangs, a probe
 * kernel for launch storms, fill and no-op kernels for the API tour and the breadcrumb
 * benchmark).  `nvcc -ptx -arch=sm_90` turns this file into the PTX that testcases/engine/
 * embeds into each program; the same PTX runs on the simulated driver (which only parses the
 * .entry declarations) and on a real GPU (which compiles it), so every kernel here must be
 * correct CUDA and every planted fault must really fault.
 *
 * Names are extern "C" so that launch records read naturally, except decode::matvec, which is
 * C++ on purpose: its mangled name (_ZN6decode6matvec...) exercises demangling in reports.
 * Parameter lists mix pointers, 32- and 64-bit integers, floats, a byte and a 12-byte struct
 * passed by value, so that parameter layouts have gaps and alignment to get right.
 */

/* Rotary embedding settings, passed by value (12 bytes, 4-byte aligned). */
struct rope_cfg {
	float theta;
	int rot_dim;
	int n_heads;
};

/* Device-side globaltimer in nanoseconds (Hopper has it; used for the hang kernel's timeout). */
__device__ static unsigned long long now_ns(void)
{
	unsigned long long t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* x = table[token]: one thread per element of the hidden vector. */
extern "C" __global__ void embed_gather(const int *tokens, const float *table, float *x, int dim,
					int vocab)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= dim)
		return;
	/* Tokens come back from the host; keep a garbage id inside the table. */
	int t = tokens[0] % vocab;
	if (t < 0)
		t += vocab;
	x[i] = table[(size_t)t * dim + i];
}

/* y = x / rms(x) * weight, one block, blockDim a power of two <= 1024. */
extern "C" __global__ void rmsnorm(const float *x, const float *weight, float *y, int dim, float eps)
{
	__shared__ float partial[1024];
	float s = 0.0f;
	for (int i = threadIdx.x; i < dim; i += blockDim.x)
		s += x[i] * x[i];
	partial[threadIdx.x] = s;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride)
			partial[threadIdx.x] += partial[threadIdx.x + stride];
		__syncthreads();
	}
	float inv = rsqrtf(partial[0] / dim + eps);
	for (int i = threadIdx.x; i < dim; i += blockDim.x)
		y[i] = x[i] * inv * weight[i];
}

namespace decode {
/* y[r] = act(W[r,:] . x) (+ residual[r]); act 0 = identity, 1 = SiLU.  One thread per row.
 * y may alias residual (each element is read and written by the same thread). */
__global__ void matvec(const float *w, const float *x, float *y, int rows, int cols, int act,
		       const float *residual)
{
	int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= rows)
		return;
	const float *wr = w + (size_t)r * cols;
	float acc = 0.0f;
	for (int c = 0; c < cols; c++)
		acc += wr[c] * x[c];
	if (act == 1)
		acc = acc / (1.0f + __expf(-acc));
	if (residual)
		acc += residual[r];
	y[r] = acc;
}
} // namespace decode

/* Rotate pairs of q and k by position: grid = heads, block = rot_dim / 2. */
extern "C" __global__ void rope(float *q, float *k, int pos, struct rope_cfg cfg)
{
	int h = blockIdx.x, i = threadIdx.x;
	if (h >= cfg.n_heads || 2 * i + 1 >= cfg.rot_dim)
		return;
	float freq = powf(cfg.theta, -2.0f * i / cfg.rot_dim);
	float s, c;
	sincosf(pos * freq, &s, &c);
	float *qh = q + h * cfg.rot_dim, *kh = k + h * cfg.rot_dim;
	float q0 = qh[2 * i], q1 = qh[2 * i + 1], k0 = kh[2 * i], k1 = kh[2 * i + 1];
	qh[2 * i] = q0 * c - q1 * s;
	qh[2 * i + 1] = q0 * s + q1 * c;
	kh[2 * i] = k0 * c - k1 * s;
	kh[2 * i + 1] = k0 * s + k1 * c;
}

/* Store this token's k and v at position pos of the sequence, through its page table. */
extern "C" __global__ void kv_append(const float *k, const float *v, float *k_cache, float *v_cache,
				     const int *page_table, int pos, int page_size, int kv_dim)
{
	int d = blockIdx.x * blockDim.x + threadIdx.x;
	if (d >= kv_dim)
		return;
	unsigned page = (unsigned)page_table[pos / page_size];
	size_t off = ((size_t)page * page_size + pos % page_size) * kv_dim + d;
	k_cache[off] = k[d];
	v_cache[off] = v[d];
}

/* Decode attention for one token over n_ctx cached positions: grid = heads, any block size;
 * dynamic shared memory holds n_ctx scores.  Page-table entries are unsigned physical page
 * numbers (a garbage entry therefore lands far past the cache instead of before it).  When
 * write_lse is set, the log-sum-exp of each head goes to lse[head] (a workspace buffer, as
 * split-KV decoders keep it). */
extern "C" __global__ void paged_attention(float *out, const float *q, const float *k_cache,
					   const float *v_cache, const int *page_table, float *lse,
					   int n_ctx, int page_size, int head_dim, float scale,
					   unsigned char write_lse)
{
	extern __shared__ float scores[];
	__shared__ float sum_s;
	int h = blockIdx.x;
	int kv_dim = gridDim.x * head_dim;
	const float *qh = q + h * head_dim;

	for (int t = threadIdx.x; t < n_ctx; t += blockDim.x) {
		unsigned page = (unsigned)page_table[t / page_size];
		const float *kt = k_cache + ((size_t)page * page_size + t % page_size) * kv_dim +
				  h * head_dim;
		float s = 0.0f;
		for (int d = 0; d < head_dim; d++)
			s += qh[d] * kt[d];
		scores[t] = s * scale;
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		float m = -INFINITY, sum = 0.0f;
		for (int t = 0; t < n_ctx; t++)
			m = fmaxf(m, scores[t]);
		for (int t = 0; t < n_ctx; t++) {
			scores[t] = __expf(scores[t] - m);
			sum += scores[t];
		}
		sum_s = sum;
		if (write_lse)
			lse[h] = m + __logf(sum);
	}
	__syncthreads();
	for (int d = threadIdx.x; d < head_dim; d += blockDim.x) {
		float acc = 0.0f;
		for (int t = 0; t < n_ctx; t++) {
			unsigned page = (unsigned)page_table[t / page_size];
			const float *vt = v_cache +
					  ((size_t)page * page_size + t % page_size) * kv_dim +
					  h * head_dim;
			acc += scores[t] * vt[d];
		}
		out[h * head_dim + d] = acc / sum_s;
	}
}

/* A reproducible 24-bit hash of (seed, step, i) for Gumbel sampling. */
__device__ static unsigned mix(unsigned long long seed, unsigned step, unsigned i)
{
	unsigned long long z = seed ^ ((unsigned long long)step << 32) ^ i;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (unsigned)((z ^ (z >> 31)) >> 40); /* 24 bits: u below stays in (0, 1) */
}

/* Gumbel-max sampling of one token: one block of 256 threads.  Ties go to the lower id so the
 * result does not depend on scheduling. */
extern "C" __global__ void sample_token(const float *logits, int vocab, float temperature,
					unsigned long long seed, unsigned int step, int *out_token)
{
	__shared__ float best_v[256];
	__shared__ int best_i[256];
	float bv = -INFINITY;
	int bi = 0x7fffffff;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
		float u = (mix(seed, step, i) + 0.5f) * (1.0f / 16777216.0f);
		float v = logits[i] / temperature - __logf(-__logf(u));
		if (v > bv || (v == bv && i < bi)) {
			bv = v;
			bi = i;
		}
	}
	best_v[threadIdx.x] = bv;
	best_i[threadIdx.x] = bi;
	__syncthreads();
	for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
		if (threadIdx.x < stride) {
			float ov = best_v[threadIdx.x + stride];
			int oi = best_i[threadIdx.x + stride];
			if (ov > best_v[threadIdx.x] || (ov == best_v[threadIdx.x] && oi < best_i[threadIdx.x])) {
				best_v[threadIdx.x] = ov;
				best_i[threadIdx.x] = oi;
			}
		}
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out_token[0] = best_i[0] == 0x7fffffff ? 0 : best_i[0];
}

/* Spin until *flag (host-mapped memory) becomes non-zero, or until timeout_ns passes when it is
 * not 0.  *status gets 1 when released by the flag, 2 on timeout.  This is how --hang really
 * hangs a GPU and how it is released again. */
extern "C" __global__ void spin_wait(const volatile unsigned int *flag, unsigned long long timeout_ns,
				     volatile unsigned int *status)
{
	if (blockIdx.x != 0 || threadIdx.x != 0)
		return;
	unsigned long long start = now_ns();
	while (*flag == 0) {
		if (timeout_ns && now_ns() - start > timeout_ns) {
			*status = 2;
			__threadfence_system();
			return;
		}
		__nanosleep(1000);
	}
	*status = 1;
	__threadfence_system();
}

/* Launch-storm probe: every argument is derived from the per-thread counter i (see
 * docs/ENGINES.md, "launchstorm"); one thread leaves a trace so the kernel is not empty. */
extern "C" __global__ void storm_probe(unsigned long long i, unsigned int i7, int thread,
				       unsigned long long check, unsigned long long *out)
{
	if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0)
		out[thread] = i ^ check ^ i7;
}

/* p[0..n) = value. */
extern "C" __global__ void fill_u32(unsigned int *p, unsigned int value, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		p[i] = value;
}

/* A kernel without parameters (the smallest launch; also an edge case for layouts). */
extern "C" __global__ void noop(void)
{
}
