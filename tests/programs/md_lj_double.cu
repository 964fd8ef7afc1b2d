// A double-precision Lennard-Jones molecular-dynamics step, written the way
// small research codes are: a flat main with command-line options
// (-n particles, -s steps, -dt, -rc), a cubic box with periodic images
// folded by minimum image, all-pairs forces with rsqrt and fma, energies
// and the virial summed with atomicAdd on double, positions read through
// __ldg, velocity Verlet split into two kernels, and every launch followed
// by a cudaDeviceSynchronize error check.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                        \
    do {                                                                                   \
        const cudaError_t error_code = call;                                               \
        if (error_code != cudaSuccess) {                                                   \
            printf("CUDA Error:\n");                                                       \
            printf("    File:       %s\n", __FILE__);                                      \
            printf("    Line:       %d\n", __LINE__);                                      \
            printf("    Error code: %d\n", error_code);                                    \
            printf("    Error text: %s\n", cudaGetErrorString(error_code));                \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

#define SYNC_CHECK()                      \
    do {                                  \
        CHECK(cudaGetLastError());        \
        CHECK(cudaDeviceSynchronize());   \
    } while (0)

const int BLOCK_SIZE = 128;

typedef double real;

struct Box {
    real lx, ly, lz;
    real lx2, ly2, lz2; // half lengths
};

static __device__ __forceinline__ void apply_mic(const real l, const real l2, real &d) {
    if (d < -l2) d += l;
    else if (d > l2) d -= l;
}

// Forces, potential energy and virial; one thread per particle i, all j.
__global__ void gpu_find_force(const int N, const real lx, const real ly, const real lz, const real cutoff_square,
                               const real *__restrict__ g_x, const real *__restrict__ g_y,
                               const real *__restrict__ g_z, real *g_fx, real *g_fy, real *g_fz, real *g_pe,
                               real *g_virial) {
    const int n1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (n1 >= N) return;

    const real x1 = __ldg(g_x + n1);
    const real y1 = __ldg(&g_y[n1]);
    const real z1 = __ldg(g_z + n1);
    real fx = 0.0, fy = 0.0, fz = 0.0, pe = 0.0, virial = 0.0;

    for (int n2 = 0; n2 < N; ++n2) {
        if (n2 == n1) continue;
        real x12 = __ldg(g_x + n2) - x1;
        real y12 = __ldg(g_y + n2) - y1;
        real z12 = __ldg(g_z + n2) - z1;
        apply_mic(lx, 0.5 * lx, x12);
        apply_mic(ly, 0.5 * ly, y12);
        apply_mic(lz, 0.5 * lz, z12);
        const real d2 = fma(x12, x12, fma(y12, y12, z12 * z12));
        if (d2 > cutoff_square) continue;

        const real inv_d = rsqrt(d2);
        const real inv_d2 = inv_d * inv_d;
        const real inv_d6 = inv_d2 * inv_d2 * inv_d2;
        const real inv_d8 = inv_d6 * inv_d2;
        // U = 4 (r^-12 - r^-6), f(r)/r = 24 r^-8 (1 - 2 r^-6)
        const real f2 = 24.0 * inv_d8 * fma(-2.0, inv_d6, 1.0);
        fx += f2 * x12;
        fy += f2 * y12;
        fz += f2 * z12;
        pe += 2.0 * inv_d6 * (inv_d6 - 1.0); // half of 4 (r^-12 - r^-6), each pair seen twice
        virial -= 0.5 * f2 * d2;
    }
    g_fx[n1] = fx;
    g_fy[n1] = fy;
    g_fz[n1] = fz;
    atomicAdd(g_pe, pe);
    atomicAdd(&g_virial[0], virial);
}

// Velocity Verlet, first half: v += f/m dt/2, x += v dt, folded into the box.
__global__ void gpu_integrate_first(const int N, const real time_step, const real mass, real *g_x, real *g_y,
                                    real *g_z, real *g_vx, real *g_vy, real *g_vz, const real *g_fx,
                                    const real *g_fy, const real *g_fz, const Box box) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= N) return;
    const real half_dt_over_m = 0.5 * time_step / mass;
    g_vx[n] = fma(g_fx[n], half_dt_over_m, g_vx[n]);
    g_vy[n] = fma(g_fy[n], half_dt_over_m, g_vy[n]);
    g_vz[n] = fma(g_fz[n], half_dt_over_m, g_vz[n]);
    g_x[n] = fmod(g_x[n] + g_vx[n] * time_step + box.lx, box.lx);
    g_y[n] = fmod(g_y[n] + g_vy[n] * time_step + box.ly, box.ly);
    g_z[n] = fmod(g_z[n] + g_vz[n] * time_step + box.lz, box.lz);
}

__global__ void gpu_integrate_second(const int N, const real time_step, const real mass, real *g_vx, real *g_vy,
                                     real *g_vz, const real *g_fx, const real *g_fy, const real *g_fz,
                                     real *g_ke) {
    __shared__ real s_ke[BLOCK_SIZE];
    const int tid = threadIdx.x;
    const int n = blockIdx.x * blockDim.x + tid;
    real ke = 0.0;
    if (n < N) {
        const real half_dt_over_m = 0.5 * time_step / mass;
        const real vx = fma(g_fx[n], half_dt_over_m, g_vx[n]);
        const real vy = fma(g_fy[n], half_dt_over_m, g_vy[n]);
        const real vz = fma(g_fz[n], half_dt_over_m, g_vz[n]);
        g_vx[n] = vx;
        g_vy[n] = vy;
        g_vz[n] = vz;
        ke = 0.5 * mass * (vx * vx + vy * vy + vz * vz);
    }
    s_ke[tid] = ke;
    __syncthreads();
    for (int offset = blockDim.x >> 1; offset > 0; offset >>= 1) {
        if (tid < offset) s_ke[tid] += s_ke[tid + offset];
        __syncthreads();
    }
    if (tid == 0) atomicAdd(g_ke, s_ke[0]);
}

// Rescales velocities to a target temperature (Berendsen-like, strength 1).
__global__ void gpu_scale_velocity(const int N, const real factor, real *g_vx, real *g_vy, real *g_vz) {
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < N) {
        g_vx[n] *= factor;
        g_vy[n] *= factor;
        g_vz[n] *= factor;
    }
}

// ---------------------------------------------------------------- host --

static void print_usage(const char *prog) {
    printf("usage: %s [-n cells_per_side] [-s steps] [-dt step] [-rc cutoff] [-T temperature]\n", prog);
}

int main(int argc, char **argv) {
    int nxyz = 6, steps = 50;
    real time_step = 0.005, cutoff = 2.5, temperature = 0.8;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-n") && i + 1 < argc) nxyz = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-s") && i + 1 < argc) steps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-dt") && i + 1 < argc) time_step = atof(argv[++i]);
        else if (!strcmp(argv[i], "-rc") && i + 1 < argc) cutoff = atof(argv[++i]);
        else if (!strcmp(argv[i], "-T") && i + 1 < argc) temperature = atof(argv[++i]);
        else {
            print_usage(argv[0]);
            return 1;
        }
    }
    const int N = 4 * nxyz * nxyz * nxyz; // fcc lattice
    const real a = 1.6796; // lattice constant near the LJ density 0.844
    const real mass = 1.0;
    Box box;
    box.lx = box.ly = box.lz = a * nxyz;
    box.lx2 = box.ly2 = box.lz2 = 0.5 * a * nxyz;

    std::vector<real> x(N), y(N), z(N), vx(N), vy(N), vz(N);
    const real basis[4][3] = {{0, 0, 0}, {0, 0.5, 0.5}, {0.5, 0, 0.5}, {0.5, 0.5, 0}};
    int n = 0;
    for (int ix = 0; ix < nxyz; ++ix)
        for (int iy = 0; iy < nxyz; ++iy)
            for (int iz = 0; iz < nxyz; ++iz)
                for (int b = 0; b < 4; ++b, ++n) {
                    x[n] = (ix + basis[b][0]) * a;
                    y[n] = (iy + basis[b][1]) * a;
                    z[n] = (iz + basis[b][2]) * a;
                }
    srand(12345);
    real momentum[3] = {0, 0, 0};
    for (int i = 0; i < N; ++i) {
        vx[i] = rand() / (real)RAND_MAX - 0.5;
        vy[i] = rand() / (real)RAND_MAX - 0.5;
        vz[i] = rand() / (real)RAND_MAX - 0.5;
        momentum[0] += vx[i];
        momentum[1] += vy[i];
        momentum[2] += vz[i];
    }
    real ke0 = 0.0;
    for (int i = 0; i < N; ++i) {
        vx[i] -= momentum[0] / N;
        vy[i] -= momentum[1] / N;
        vz[i] -= momentum[2] / N;
        ke0 += 0.5 * mass * (vx[i] * vx[i] + vy[i] * vy[i] + vz[i] * vz[i]);
    }
    const real scale0 = sqrt(temperature * 1.5 * N / ke0);
    for (int i = 0; i < N; ++i) {
        vx[i] *= scale0;
        vy[i] *= scale0;
        vz[i] *= scale0;
    }

    const size_t bytes = sizeof(real) * N;
    real *d_x, *d_y, *d_z, *d_vx, *d_vy, *d_vz, *d_fx, *d_fy, *d_fz, *d_sums;
    CHECK(cudaMalloc(&d_x, bytes));
    CHECK(cudaMalloc(&d_y, bytes));
    CHECK(cudaMalloc(&d_z, bytes));
    CHECK(cudaMalloc(&d_vx, bytes));
    CHECK(cudaMalloc(&d_vy, bytes));
    CHECK(cudaMalloc(&d_vz, bytes));
    CHECK(cudaMalloc(&d_fx, bytes));
    CHECK(cudaMalloc(&d_fy, bytes));
    CHECK(cudaMalloc(&d_fz, bytes));
    CHECK(cudaMalloc(&d_sums, 3 * sizeof(real))); // pe, virial, ke
    CHECK(cudaMemcpy(d_x, x.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_z, z.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vx, vx.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vy, vy.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_vz, vz.data(), bytes, cudaMemcpyHostToDevice));

    const int grid_size = (N - 1) / BLOCK_SIZE + 1;
    real sums[3];
    CHECK(cudaMemset(d_sums, 0, 3 * sizeof(real)));
    gpu_find_force<<<grid_size, BLOCK_SIZE>>>(N, box.lx, box.ly, box.lz, cutoff * cutoff, d_x, d_y, d_z, d_fx, d_fy,
                                              d_fz, d_sums, d_sums + 1);
    SYNC_CHECK();
    real e_first = 0.0;
    for (int step = 0; step < steps; ++step) {
        gpu_integrate_first<<<grid_size, BLOCK_SIZE>>>(N, time_step, mass, d_x, d_y, d_z, d_vx, d_vy, d_vz, d_fx,
                                                       d_fy, d_fz, box);
        SYNC_CHECK();
        CHECK(cudaMemset(d_sums, 0, 3 * sizeof(real)));
        gpu_find_force<<<grid_size, BLOCK_SIZE>>>(N, box.lx, box.ly, box.lz, cutoff * cutoff, d_x, d_y, d_z, d_fx,
                                                  d_fy, d_fz, d_sums, d_sums + 1);
        SYNC_CHECK();
        gpu_integrate_second<<<grid_size, BLOCK_SIZE>>>(N, time_step, mass, d_vx, d_vy, d_vz, d_fx, d_fy, d_fz,
                                                        d_sums + 2);
        SYNC_CHECK();
        CHECK(cudaMemcpy(sums, d_sums, 3 * sizeof(real), cudaMemcpyDeviceToHost));
        const real total = sums[0] + sums[2];
        if (step == 0) e_first = total;
        if (step % 10 == 0)
            printf("step %4d  pe %12.6f  ke %12.6f  total %12.6f  P %10.6f\n", step, sums[0] / N, sums[2] / N,
                   total / N, (2.0 * sums[2] - sums[1]) / (3.0 * box.lx * box.ly * box.lz));
        if (step < steps / 2) {
            const real t_now = sums[2] / (1.5 * N);
            gpu_scale_velocity<<<grid_size, BLOCK_SIZE>>>(N, sqrt(temperature / t_now), d_vx, d_vy, d_vz);
            SYNC_CHECK();
        }
    }
    const real drift = fabs((sums[0] + sums[2] - e_first) / e_first);

    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    CHECK(cudaFree(d_z));
    CHECK(cudaFree(d_vx));
    CHECK(cudaFree(d_vy));
    CHECK(cudaFree(d_vz));
    CHECK(cudaFree(d_fx));
    CHECK(cudaFree(d_fy));
    CHECK(cudaFree(d_fz));
    CHECK(cudaFree(d_sums));
    printf("relative energy change %.3e\n", drift);
    return std::isfinite(drift) ? 0 : 1;
}
