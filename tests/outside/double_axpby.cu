// Double precision: a*x + b*y with a grid-stride loop, plus a second kernel
// computing a Gaussian pdf and a log-normal density in double.
extern "C" __global__ void daxpby(int n, double a, const double *__restrict__ x,
                                  double b, double *__restrict__ y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + b * y[i];
}

extern "C" __global__ void gauss_pdf(const double *__restrict__ x, double *__restrict__ out,
                                     double mu, double sigma, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double z = (x[i] - mu) / sigma;
        double p = exp(-0.5 * z * z) / (sigma * sqrt(2.0 * M_PI));
        double lx = log(fabs(x[i]) + 1e-12);
        double ln = exp(-(lx - mu) * (lx - mu) / (2.0 * sigma * sigma)) /
                    (fabs(x[i]) * sigma * 2.5066282746310002 + 1e-300);
        out[i] = fmax(p, ln);
    }
}
