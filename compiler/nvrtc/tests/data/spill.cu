extern "C" __global__ void __launch_bounds__(1024, 2) heavy(const float* in, float* out, const int* idx, int n) {
    float local[64];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    #pragma unroll
    for (int k = 0; k < 64; ++k) local[k] = in[t * 64 + k] * (k + 1);
    float acc = 0.f;
    #pragma unroll
    for (int k = 0; k < 64; ++k) acc += local[idx[k] & 63] * local[k];
    out[t] = acc;
}
