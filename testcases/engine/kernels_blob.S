/* Embeds the kernels' PTX (generated from kernels.cu by nvcc, or the committed kernels.ptx when
 * nvcc is absent) into each test engine as engine_kernels_ptx[], NUL-terminated, so that
 * cuModuleLoadData/cuLibraryLoadData get it as a C string.  KERNELS_PTX is set by build.mk. */
	.section .rodata
	.balign 16
	.globl engine_kernels_ptx
	.type engine_kernels_ptx, @object
engine_kernels_ptx:
	.incbin KERNELS_PTX
	.byte 0
	.globl engine_kernels_ptx_end
	.type engine_kernels_ptx_end, @object
engine_kernels_ptx_end:
	.size engine_kernels_ptx, engine_kernels_ptx_end - engine_kernels_ptx
	.section .note.GNU-stack,"",@progbits
