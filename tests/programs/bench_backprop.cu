// Back-propagation training of a two-layer perceptron (input -> hidden ->
// output), in the style of a classic GPU benchmark suite: the network is a
// C struct of row-pointer matrices on the host, the input-to-hidden layer's
// weighted sums are computed on the GPU in 16x16 tiles (partial sums reduced
// in shared memory with a power-of-two ladder, then summed on the host), the
// small layers stay on the CPU, and the input-to-hidden weights are adjusted
// on the GPU with learning rate and momentum. Constants are #defines, as
// double literals, so the update mixes float and double as the original
// suite's code does.
//
//   ./backprop 65536

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <cuda.h>

#define BIGRND 0x7fffffff
#define THREADS 256
#define WIDTH 16  // tile width
#define HEIGHT 16 // tile height
#define ETA 0.3       // learning rate
#define MOMENTUM 0.3  // momentum
#define ABS(x) (((x) > 0.0) ? (x) : (-(x)))

typedef struct {
  int input_n;  // number of input units
  int hidden_n; // number of hidden units
  int output_n; // number of output units

  float *input_units;
  float *hidden_units;
  float *output_units;
  float *hidden_delta;
  float *output_delta;
  float *target;

  float **input_weights;  // (input_n + 1) x (hidden_n + 1)
  float **hidden_weights; // (hidden_n + 1) x (output_n + 1)
  float **input_prev_weights;
  float **hidden_prev_weights;
} BPNN;

extern "C" void bpnn_train_cuda(BPNN *net, float *eo, float *eh);

// ---------------------------------------------------------------- kernels

// Block (bx, by) covers inputs [by * HEIGHT, +HEIGHT) and hidden units
// [bx * WIDTH, +WIDTH) (unit 0 is the bias, so indices start at 1); each
// column of the tile is reduced to one partial sum per hidden unit.
__global__ void bpnn_layerforward_CUDA(float *input_cuda, float *output_hidden_cuda,
                                       float *input_hidden_cuda, float *hidden_partial_sum,
                                       int in, int hid) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_in = HEIGHT * by + ty + 1;

  __shared__ float input_node[HEIGHT];
  __shared__ float weight_matrix[HEIGHT][WIDTH];

  if (tx == 0) {
    input_node[ty] = input_cuda[index_in];
  }
  __syncthreads();

  weight_matrix[ty][tx] = input_hidden_cuda[index];
  __syncthreads();

  weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];
  __syncthreads();

  for (int i = 1; i <= __log2f(HEIGHT); i++) {
    int power_two = __powf(2, i);
    if (ty % power_two == 0) {
      weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];
    }
    __syncthreads();
  }

  input_hidden_cuda[index] = weight_matrix[ty][tx];
  __syncthreads();

  if (tx == 0) {
    hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
  }
}

__global__ void bpnn_adjust_weights_cuda(float *delta, int hid, float *ly, int in, float *w,
                                         float *oldw) {
  int by = blockIdx.y;
  int tx = threadIdx.x;
  int ty = threadIdx.y;

  int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);
  int index_y = HEIGHT * by + ty + 1;
  int index_x = tx + 1;

  w[index] += ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  oldw[index] = ((ETA * delta[index_x] * ly[index_y]) + (MOMENTUM * oldw[index]));
  __syncthreads();

  if (ty == 0 && by == 0) {
    w[index_x] += ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
    oldw[index_x] = ((ETA * delta[index_x]) + (MOMENTUM * oldw[index_x]));
  }
}

// ------------------------------------------------------------ host: BPNN

static double gettime() {
  struct timeval t;
  gettimeofday(&t, NULL);
  return t.tv_sec + t.tv_usec * 1e-6;
}

static float drnd() { return (float)rand() / (float)BIGRND; }
static float dpn1() { return (drnd() * 2.0f) - 1.0f; }
static float squash(float x) { return 1.0f / (1.0f + expf(-x)); }

static float *alloc_1d_dbl(int n) { return (float *)malloc(n * sizeof(float)); }

static float **alloc_2d_dbl(int m, int n) {
  float **rows = (float **)malloc(m * sizeof(float *));
  for (int i = 0; i < m; i++) rows[i] = alloc_1d_dbl(n);
  return rows;
}

static void bpnn_randomize_weights(float **w, int m, int n) {
  for (int i = 0; i <= m; i++)
    for (int j = 0; j <= n; j++) w[i][j] = dpn1() * 0.1f;
}

static void bpnn_zero_weights(float **w, int m, int n) {
  for (int i = 0; i <= m; i++) memset(w[i], 0, (n + 1) * sizeof(float));
}

BPNN *bpnn_create(int n_in, int n_hidden, int n_out) {
  BPNN *net = (BPNN *)malloc(sizeof(BPNN));
  net->input_n = n_in;
  net->hidden_n = n_hidden;
  net->output_n = n_out;
  net->input_units = alloc_1d_dbl(n_in + 1);
  net->hidden_units = alloc_1d_dbl(n_hidden + 1);
  net->output_units = alloc_1d_dbl(n_out + 1);
  net->hidden_delta = alloc_1d_dbl(n_hidden + 1);
  net->output_delta = alloc_1d_dbl(n_out + 1);
  net->target = alloc_1d_dbl(n_out + 1);
  net->input_weights = alloc_2d_dbl(n_in + 1, n_hidden + 1);
  net->hidden_weights = alloc_2d_dbl(n_hidden + 1, n_out + 1);
  net->input_prev_weights = alloc_2d_dbl(n_in + 1, n_hidden + 1);
  net->hidden_prev_weights = alloc_2d_dbl(n_hidden + 1, n_out + 1);
  bpnn_randomize_weights(net->input_weights, n_in, n_hidden);
  bpnn_randomize_weights(net->hidden_weights, n_hidden, n_out);
  bpnn_zero_weights(net->input_prev_weights, n_in, n_hidden);
  bpnn_zero_weights(net->hidden_prev_weights, n_hidden, n_out);
  return net;
}

static void bpnn_layerforward(float *l1, float *l2, float **conn, int n1, int n2) {
  l1[0] = 1.0f;
  for (int j = 1; j <= n2; j++) {
    float sum = 0.0f;
    for (int k = 0; k <= n1; k++) sum += conn[k][j] * l1[k];
    l2[j] = squash(sum);
  }
}

static void bpnn_output_error(float *delta, float *target, float *output, int nj, float *err) {
  float errsum = 0.0f;
  for (int j = 1; j <= nj; j++) {
    float o = output[j];
    delta[j] = o * (1.0f - o) * (target[j] - o);
    errsum += ABS(delta[j]);
  }
  *err = errsum;
}

static void bpnn_hidden_error(float *delta_h, int nh, float *delta_o, int no, float **who,
                              float *hidden, float *err) {
  float errsum = 0.0f;
  for (int j = 1; j <= nh; j++) {
    float h = hidden[j];
    float sum = 0.0f;
    for (int k = 1; k <= no; k++) sum += delta_o[k] * who[j][k];
    delta_h[j] = h * (1.0f - h) * sum;
    errsum += ABS(delta_h[j]);
  }
  *err = errsum;
}

static void bpnn_adjust_weights(float *delta, int ndelta, float *ly, int nly, float **w,
                                float **oldw) {
  ly[0] = 1.0f;
  for (int j = 1; j <= ndelta; j++) {
    for (int k = 0; k <= nly; k++) {
      float new_dw = ((ETA * delta[j] * ly[k]) + (MOMENTUM * oldw[k][j]));
      w[k][j] += new_dw;
      oldw[k][j] = new_dw;
    }
  }
}

// ------------------------------------------------------------ host: CUDA

extern "C" void bpnn_train_cuda(BPNN *net, float *eo, float *eh) {
  int in = net->input_n;
  int hid = net->hidden_n;
  int out = net->output_n;
  int num_blocks = in / HEIGHT;

  dim3 grid(1, num_blocks);
  dim3 threads(WIDTH, HEIGHT);

  float *input_weights_one_dim = (float *)malloc((in + 1) * (hid + 1) * sizeof(float));
  float *input_weights_prev_one_dim = (float *)malloc((in + 1) * (hid + 1) * sizeof(float));
  float *partial_sum = (float *)malloc(num_blocks * WIDTH * sizeof(float));

  int m = 0;
  for (int k = 0; k <= in; k++) {
    for (int j = 0; j <= hid; j++) {
      input_weights_one_dim[m] = net->input_weights[k][j];
      input_weights_prev_one_dim[m] = net->input_prev_weights[k][j];
      m++;
    }
  }

  float *input_cuda, *output_hidden_cuda, *input_hidden_cuda, *hidden_partial_sum;
  float *hidden_delta_cuda, *input_prev_weights_cuda;
  cudaMalloc((void **)&input_cuda, (in + 1) * sizeof(float));
  cudaMalloc((void **)&output_hidden_cuda, (hid + 1) * sizeof(float));
  cudaMalloc((void **)&input_hidden_cuda, (in + 1) * (hid + 1) * sizeof(float));
  cudaMalloc((void **)&hidden_partial_sum, num_blocks * WIDTH * sizeof(float));

  printf("Performing GPU computation\n");
  double t0 = gettime();
  cudaMemcpy(input_cuda, net->input_units, (in + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(input_hidden_cuda, input_weights_one_dim, (in + 1) * (hid + 1) * sizeof(float),
             cudaMemcpyHostToDevice);

  bpnn_layerforward_CUDA<<<grid, threads>>>(input_cuda, output_hidden_cuda, input_hidden_cuda,
                                            hidden_partial_sum, in, hid);
  cudaDeviceSynchronize();
  cudaError_t error = cudaGetLastError();
  if (error != cudaSuccess) {
    printf("bpnn kernel error: %s\n", cudaGetErrorString(error));
    exit(EXIT_FAILURE);
  }

  cudaMemcpy(partial_sum, hidden_partial_sum, num_blocks * WIDTH * sizeof(float),
             cudaMemcpyDeviceToHost);
  for (int j = 1; j <= hid; j++) {
    float sum = 0.0f;
    for (int k = 0; k < num_blocks; k++) sum += partial_sum[k * hid + j - 1];
    sum += net->input_weights[0][j];
    net->hidden_units[j] = float(1.0 / (1.0 + exp(-sum)));
  }

  bpnn_layerforward(net->hidden_units, net->output_units, net->hidden_weights, hid, out);
  bpnn_output_error(net->output_delta, net->target, net->output_units, out, eo);
  bpnn_hidden_error(net->hidden_delta, hid, net->output_delta, out, net->hidden_weights,
                    net->hidden_units, eh);
  bpnn_adjust_weights(net->output_delta, out, net->hidden_units, hid, net->hidden_weights,
                      net->hidden_prev_weights);

  cudaMalloc((void **)&hidden_delta_cuda, (hid + 1) * sizeof(float));
  cudaMalloc((void **)&input_prev_weights_cuda, (in + 1) * (hid + 1) * sizeof(float));
  cudaMemcpy(hidden_delta_cuda, net->hidden_delta, (hid + 1) * sizeof(float),
             cudaMemcpyHostToDevice);
  cudaMemcpy(input_prev_weights_cuda, input_weights_prev_one_dim,
             (in + 1) * (hid + 1) * sizeof(float), cudaMemcpyHostToDevice);
  cudaMemcpy(input_hidden_cuda, input_weights_one_dim, (in + 1) * (hid + 1) * sizeof(float),
             cudaMemcpyHostToDevice);

  bpnn_adjust_weights_cuda<<<grid, threads>>>(hidden_delta_cuda, hid, input_cuda, in,
                                              input_hidden_cuda, input_prev_weights_cuda);

  cudaMemcpy(net->input_units, input_cuda, (in + 1) * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(input_weights_one_dim, input_hidden_cuda, (in + 1) * (hid + 1) * sizeof(float),
             cudaMemcpyDeviceToHost);
  double t1 = gettime();
  printf("GPU time: %f s\n", t1 - t0);

  // check the GPU's update against the CPU's on a copy of the weights
  float **expected = alloc_2d_dbl(in + 1, hid + 1);
  float **expected_prev = alloc_2d_dbl(in + 1, hid + 1);
  for (int k = 0; k <= in; k++) {
    memcpy(expected[k], net->input_weights[k], (hid + 1) * sizeof(float));
    memcpy(expected_prev[k], net->input_prev_weights[k], (hid + 1) * sizeof(float));
  }
  bpnn_adjust_weights(net->hidden_delta, hid, net->input_units, in, expected, expected_prev);
  int mismatches = 0;
  for (int k = 0; k <= in; k++)
    for (int j = 1; j <= hid; j++)
      if (fabsf(expected[k][j] - input_weights_one_dim[k * (hid + 1) + j]) > 1e-4f) mismatches++;
  printf("weight update: %s (%d mismatches)\n", mismatches == 0 ? "PASSED" : "FAILED",
         mismatches);

  cudaFree(input_cuda);
  cudaFree(output_hidden_cuda);
  cudaFree(input_hidden_cuda);
  cudaFree(hidden_partial_sum);
  cudaFree(input_prev_weights_cuda);
  cudaFree(hidden_delta_cuda);
  free(partial_sum);
  free(input_weights_one_dim);
  free(input_weights_prev_one_dim);
}

int main(int argc, char **argv) {
  int layer_size = 65536;
  if (argc == 2) {
    layer_size = atoi(argv[1]);
  }
  if (layer_size % HEIGHT != 0) {
    fprintf(stderr, "The number of input points must be divided by %d\n", HEIGHT);
    exit(EXIT_FAILURE);
  }
  srand(7);
  BPNN *net = bpnn_create(layer_size, WIDTH, 1);
  printf("Input layer size : %d\n", layer_size);
  for (int i = 1; i <= layer_size; i++) net->input_units[i] = drnd();
  net->target[1] = 0.1f;

  float out_err, hid_err;
  printf("Starting training kernel\n");
  bpnn_train_cuda(net, &out_err, &hid_err);
  printf("output error %f, hidden error %f\n", out_err, hid_err);
  printf("Training done\n");
  return 0;
}
