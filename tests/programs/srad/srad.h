/* Parameters of the diffusion benchmark, shared by the driver and the kernels. */
#ifndef SRAD_H
#define SRAD_H

#define BLOCK_SIZE 16
#define STR_SIZE 256

/* Row-major index into a rows x cols image. */
#define IDX(r, c, cols) ((r) * (cols) + (c))

#ifdef RD_FLOAT_DOUBLE
typedef double real_t;
#else
typedef float real_t;
#endif

#endif
