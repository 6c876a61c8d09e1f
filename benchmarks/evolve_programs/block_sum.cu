// A whole CUDA program whose kernels take their block size from one constant: what evolution's
// block-size mutation changes (benchmarks/evolve_cuda_gpu.py). Sums 2i + 1 for i < n (= n * n,
// exact in double up to n = 2^26), as block partial sums in shared memory.
#include <cstdio>
#include <cstdlib>

#define BLOCK 128

__global__ void fill(double *y, long n) {
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = 2.0 * (double)i + 1.0;
}

__global__ void block_sum(const double *y, double *out, long n) {
    __shared__ double part[BLOCK];
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    part[threadIdx.x] = i < n ? y[i] : 0.0;
    __syncthreads();
    for (int step = blockDim.x / 2; step > 0; step /= 2) {
        if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double *y, *out;
    cudaMalloc(&y, (n > 0 ? n : 1) * sizeof(double));
    cudaMallocManaged(&out, sizeof(double));
    *out = 0;
    long blocks = (n + BLOCK - 1) / BLOCK;
    for (int rep = 0; rep < 20; rep++) {
        *out = 0;
        cudaDeviceSynchronize();
        fill<<<blocks > 0 ? blocks : 1, BLOCK>>>(y, n);
        block_sum<<<blocks > 0 ? blocks : 1, BLOCK>>>(y, out, n);
        cudaDeviceSynchronize();
    }
    printf("%.1f\n", *out);
    cudaFree(y);
    cudaFree(out);
    return 0;
}
