// Smith-Waterman local alignment of DNA sequences with affine gaps
// (Gotoh's three matrices), computed along anti-diagonals, as
// bioinformatics GPU ports are written:
//   - a wavefront kernel launched once per anti-diagonal over the full
//     score matrices in global memory (H, E, F), each thread one cell;
//   - a one-block kernel for many short query/target pairs, one pair per
//     block, that keeps only the last two anti-diagonals in shared memory
//     and walks all diagonals with `__syncthreads()` between them, the best
//     score found by a block-wide max (`atomicMax` on a shared int);
//   - the substitution scores in a `__constant__` table indexed by base
//     codes, a variadic `constexpr` max template, a `struct Scoring`
//     passed by value;
//   - host: sequences as `std::string`, encoded with a `constexpr` lookup
//     function, the same recurrence in plain loops as the reference.

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#define CUDA_CALL(f)                                                                  \
  {                                                                                   \
    cudaError_t err = (f);                                                            \
    if (err != cudaSuccess) {                                                         \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(err));    \
      exit(EXIT_FAILURE);                                                             \
    }                                                                                 \
  }

struct Scoring {
  int gapOpen;    // paid once per gap (negative)
  int gapExtend;  // paid per gap position (negative)
};

// match +2, transition (A<->G, C<->T) -1, transversion -2; N scores 0.
__constant__ signed char c_subst[5][5] = {
    {2, -2, -1, -2, 0}, {-2, 2, -2, -1, 0}, {-1, -2, 2, -2, 0}, {-2, -1, -2, 2, 0}, {0, 0, 0, 0, 0}};

template <typename T>
__host__ __device__ constexpr T vmax(T a) {
  return a;
}
template <typename T, typename... Rest>
__host__ __device__ constexpr T vmax(T a, T b, Rest... rest) {
  return vmax(a > b ? a : b, rest...);
}

constexpr unsigned char encodeBase(char c) {
  return c == 'A' ? 0 : c == 'C' ? 1 : c == 'G' ? 2 : c == 'T' ? 3 : 4;
}

// Cell (i, j) for 1 <= i <= m, 1 <= j <= n on anti-diagonal d = i + j.
// Matrices are (m + 1) x (n + 1), row-major; row 0 and column 0 are zero.
__global__ void swDiagonal(const unsigned char *a, int m, const unsigned char *b, int n, int d,
                           Scoring sc, int *H, int *E, int *F, int *best) {
  const int iLo = max(1, d - n), iHi = min(m, d - 1);
  const int i = iLo + blockIdx.x * blockDim.x + threadIdx.x;
  if (i > iHi) return;
  const int j = d - i;
  const int w = n + 1;
  const int e = vmax(E[i * w + j - 1] + sc.gapExtend, H[i * w + j - 1] + sc.gapOpen + sc.gapExtend);
  const int f = vmax(F[(i - 1) * w + j] + sc.gapExtend, H[(i - 1) * w + j] + sc.gapOpen + sc.gapExtend);
  const int h = vmax(0, H[(i - 1) * w + j - 1] + c_subst[a[i - 1]][b[j - 1]], e, f);
  E[i * w + j] = e;
  F[i * w + j] = f;
  H[i * w + j] = h;
  atomicMax(best, h);
}

constexpr int kMaxLen = 128;

// One pair per block: query p of length lens[2p] at queries + p * kMaxLen,
// target at targets + p * kMaxLen with length lens[2p + 1]. Thread t owns
// row i = t + 1; diagonals of H, E and F rotate through shared buffers.
__global__ void swBatch(const unsigned char *queries, const unsigned char *targets, const int *lens,
                        Scoring sc, int *scores) {
  __shared__ int h[3][kMaxLen + 1];
  __shared__ int e[2][kMaxLen + 1];
  __shared__ int f[2][kMaxLen + 1];
  __shared__ int best;
  const unsigned char *a = queries + blockIdx.x * kMaxLen;
  const unsigned char *b = targets + blockIdx.x * kMaxLen;
  const int m = lens[2 * blockIdx.x], n = lens[2 * blockIdx.x + 1];
  const int i = threadIdx.x + 1;

  for (int k = threadIdx.x; k <= kMaxLen; k += blockDim.x) {
    h[0][k] = h[1][k] = h[2][k] = 0;
    e[0][k] = e[1][k] = f[0][k] = f[1][k] = -(1 << 20);
  }
  if (threadIdx.x == 0) best = 0;
  __syncthreads();

  // Buffers are indexed by row i; diagonal d lives in slot d % 3 (H) or
  // d % 2 (E, F). Row 0 stays 0 in H.
  for (int d = 2; d <= m + n; ++d) {
    const int cur = d % 3, prev = (d - 1) % 3, prev2 = (d - 2) % 3;
    const int ec = d & 1, ep = ec ^ 1;
    const int j = d - i;
    if (i <= m && j >= 1 && j <= n) {
      // Left neighbour (i, j-1) and upper (i-1, j) are on d-1; diagonal on d-2.
      const int hLeft = j > 1 ? h[prev][i] : 0;
      const int hUp = i > 1 ? h[prev][i - 1] : 0;
      const int hDiag = (i > 1 && j > 1) ? h[prev2][i - 1] : 0;
      const int eLeft = j > 1 ? e[ep][i] : -(1 << 20);
      const int fUp = i > 1 ? f[ep][i - 1] : -(1 << 20);
      const int ev = vmax(eLeft + sc.gapExtend, hLeft + sc.gapOpen + sc.gapExtend);
      const int fv = vmax(fUp + sc.gapExtend, hUp + sc.gapOpen + sc.gapExtend);
      const int hv = vmax(0, hDiag + c_subst[a[i - 1]][b[j - 1]], ev, fv);
      e[ec][i] = ev;
      f[ec][i] = fv;
      h[cur][i] = hv;
      atomicMax(&best, hv);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) scores[blockIdx.x] = best;
}

static const int kSubst[5][5] = {
    {2, -2, -1, -2, 0}, {-2, 2, -2, -1, 0}, {-1, -2, 2, -2, 0}, {-2, -1, -2, 2, 0}, {0, 0, 0, 0, 0}};

static int hostSmithWaterman(const std::string &a, const std::string &b, Scoring sc) {
  const int m = static_cast<int>(a.size()), n = static_cast<int>(b.size()), neg = -(1 << 20);
  std::vector<int> H((m + 1) * (n + 1), 0), E(H.size(), neg), F(H.size(), neg);
  int best = 0;
  for (int i = 1; i <= m; ++i)
    for (int j = 1; j <= n; ++j) {
      const int w = n + 1;
      E[i * w + j] = std::max(E[i * w + j - 1] + sc.gapExtend, H[i * w + j - 1] + sc.gapOpen + sc.gapExtend);
      F[i * w + j] = std::max(F[(i - 1) * w + j] + sc.gapExtend, H[(i - 1) * w + j] + sc.gapOpen + sc.gapExtend);
      H[i * w + j] = vmax(0, H[(i - 1) * w + j - 1] + kSubst[encodeBase(a[i - 1])][encodeBase(b[j - 1])],
                          E[i * w + j], F[i * w + j]);
      best = std::max(best, H[i * w + j]);
    }
  return best;
}

static std::string randomDna(std::mt19937 &rng, int len) {
  static const char bases[] = "ACGT";
  std::string s(len, 'A');
  for (char &c : s) c = bases[rng() % 4];
  return s;
}

static std::vector<unsigned char> encode(const std::string &s, size_t padTo = 0) {
  std::vector<unsigned char> out(std::max(padTo, s.size()), encodeBase('N'));
  std::transform(s.begin(), s.end(), out.begin(), encodeBase);
  return out;
}

int main() {
  const Scoring sc{-3, -1};
  std::mt19937 rng(11);
  int failures = 0;

  // One long pair by wavefront launches.
  {
    std::string a = randomDna(rng, 300), b = randomDna(rng, 260);
    b.replace(100, 60, a.substr(150, 60));  // plant a shared region
    const int m = static_cast<int>(a.size()), n = static_cast<int>(b.size());
    auto ea = encode(a), eb = encode(b);
    unsigned char *da, *db;
    int *H, *E, *F, *dBest;
    const size_t cells = static_cast<size_t>(m + 1) * (n + 1);
    CUDA_CALL(cudaMalloc(&da, m));
    CUDA_CALL(cudaMalloc(&db, n));
    CUDA_CALL(cudaMalloc(&H, cells * sizeof(int)));
    CUDA_CALL(cudaMalloc(&E, cells * sizeof(int)));
    CUDA_CALL(cudaMalloc(&F, cells * sizeof(int)));
    CUDA_CALL(cudaMalloc(&dBest, sizeof(int)));
    CUDA_CALL(cudaMemcpy(da, ea.data(), m, cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(db, eb.data(), n, cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemset(H, 0, cells * sizeof(int)));
    std::vector<int> negs(cells, -(1 << 20));
    CUDA_CALL(cudaMemcpy(E, negs.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(F, negs.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemset(dBest, 0, sizeof(int)));
    for (int d = 2; d <= m + n; ++d) {
      const int len = std::min(m, d - 1) - std::max(1, d - n) + 1;
      swDiagonal<<<(len + 127) / 128, 128>>>(da, m, db, n, d, sc, H, E, F, dBest);
    }
    CUDA_CALL(cudaGetLastError());
    int best = 0;
    CUDA_CALL(cudaMemcpy(&best, dBest, sizeof(int), cudaMemcpyDeviceToHost));
    const int want = hostSmithWaterman(a, b, sc);
    printf("wavefront: %d (host %d)\n", best, want);
    failures += best != want;
    cudaFree(da);
    cudaFree(db);
    cudaFree(H);
    cudaFree(E);
    cudaFree(F);
    cudaFree(dBest);
  }

  // A batch of short pairs, one block each.
  {
    const int pairs = 64;
    std::vector<std::string> qs, ts;
    std::vector<unsigned char> q(pairs * kMaxLen), t(pairs * kMaxLen);
    std::vector<int> lens(2 * pairs);
    for (int p = 0; p < pairs; ++p) {
      qs.push_back(randomDna(rng, 40 + rng() % (kMaxLen - 40)));
      ts.push_back(randomDna(rng, 20 + rng() % (kMaxLen - 20)));
      auto eq = encode(qs[p], kMaxLen), et = encode(ts[p], kMaxLen);
      std::copy(eq.begin(), eq.end(), q.begin() + p * kMaxLen);
      std::copy(et.begin(), et.end(), t.begin() + p * kMaxLen);
      lens[2 * p] = static_cast<int>(qs[p].size());
      lens[2 * p + 1] = static_cast<int>(ts[p].size());
    }
    unsigned char *dq, *dt;
    int *dLens, *dScores;
    CUDA_CALL(cudaMalloc(&dq, q.size()));
    CUDA_CALL(cudaMalloc(&dt, t.size()));
    CUDA_CALL(cudaMalloc(&dLens, lens.size() * sizeof(int)));
    CUDA_CALL(cudaMalloc(&dScores, pairs * sizeof(int)));
    CUDA_CALL(cudaMemcpy(dq, q.data(), q.size(), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(dt, t.data(), t.size(), cudaMemcpyHostToDevice));
    CUDA_CALL(cudaMemcpy(dLens, lens.data(), lens.size() * sizeof(int), cudaMemcpyHostToDevice));
    swBatch<<<pairs, kMaxLen>>>(dq, dt, dLens, sc, dScores);
    CUDA_CALL(cudaGetLastError());
    std::vector<int> scores(pairs);
    CUDA_CALL(cudaMemcpy(scores.data(), dScores, pairs * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int p = 0; p < pairs; ++p) wrong += scores[p] != hostSmithWaterman(qs[p], ts[p], sc);
    printf("batch: %d of %d pairs differ\n", wrong, pairs);
    failures += wrong;
    cudaFree(dq);
    cudaFree(dt);
    cudaFree(dLens);
    cudaFree(dScores);
  }
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? EXIT_FAILURE : EXIT_SUCCESS;
}
