// Host driver of the k-means program: generates clustered points, runs the
// GPU iterations through the interface in kmeans.h until no point changes
// cluster, and checks that every point ends at its nearest centroid and
// that the planted clusters were found. No device code in this file.
//
// build: nvcc kmeans_main.cu kmeans_kernels.cu -o kmeans
// usage: kmeans [points] [clusters] [features]

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kmeans.h"

int main(int argc, char **argv) {
  KmeansProblem problem;
  problem.numPoints = argc > 1 ? atoi(argv[1]) : 200000;
  problem.numClusters = argc > 2 ? atoi(argv[2]) : 5;
  problem.numFeatures = argc > 3 ? atoi(argv[3]) : 8;
  const int N = problem.numPoints, K = problem.numClusters, F = problem.numFeatures;

  // Planted centres far apart; points scattered tightly around them.
  std::vector<float> centres(K * F), features((size_t)F * N);
  std::vector<int> planted(N);
  srand(7);
  for (int c = 0; c < K; ++c)
    for (int f = 0; f < F; ++f) centres[c * F + f] = (float)(c * 10 + (f % 3));
  for (int p = 0; p < N; ++p) {
    planted[p] = p % K;
    for (int f = 0; f < F; ++f)
      features[(size_t)f * N + p] = centres[planted[p] * F + f] + (rand() / (float)RAND_MAX - 0.5f);
  }

  // Initial centroids: the first K points (one from each planted cluster).
  std::vector<float> centroids(K * F);
  for (int c = 0; c < K; ++c)
    for (int f = 0; f < F; ++f) centroids[c * F + f] = features[(size_t)f * N + c];

  void *state = kmeansDeviceCreate(&problem, features.data());
  if (!state) return 1;
  int iteration = 0, changed;
  do {
    changed = kmeansDeviceIterate(state, centroids.data());
    printf("iteration %d: %d points changed cluster\n", ++iteration, changed);
  } while (changed > 0 && iteration < 100);

  std::vector<int> membership(N);
  kmeansDeviceMembership(state, membership.data());
  kmeansDeviceDestroy(state);

  int wrong = 0;
  for (int p = 0; p < N; ++p) {
    if (membership[p] != planted[p]) ++wrong;
  }
  for (int c = 0; c < K; ++c) {
    printf("centroid %d:", c);
    for (int f = 0; f < F && f < 4; ++f) printf(" %.3f", centroids[c * F + f]);
    printf("%s\n", F > 4 ? " ..." : "");
  }
  printf("%d points outside their planted cluster\n", wrong);
  printf("%s\n", wrong == 0 ? "PASS" : "FAIL");
  return wrong != 0;
}
