// k-means clustering: the interface between the host driver
// (kmeans_main.cu, host code only) and the GPU part (kmeans_kernels.cu).
// Points are stored feature-major ("transposed"): feature f of point p is
// at features[f * numPoints + p], so a warp reads consecutive points.
#ifndef KMEANS_H
#define KMEANS_H

#include <cstddef>

struct KmeansProblem {
  int numPoints;
  int numFeatures;
  int numClusters;
};

#ifdef __cplusplus
extern "C" {
#endif

// Allocates the device state for a problem and copies the points in.
void *kmeansDeviceCreate(const KmeansProblem *problem, const float *featuresTransposed);
// One iteration: assigns each point to its nearest centroid (returning the
// number of points whose cluster changed) and recomputes the centroids
// (written to centroids, numClusters x numFeatures, row-major).
int kmeansDeviceIterate(void *state, float *centroids);
// Copies the current assignment (numPoints ints) to the host.
void kmeansDeviceMembership(void *state, int *membership);
void kmeansDeviceDestroy(void *state);

#ifdef __cplusplus
}
#endif

#endif
