// A call tree that doubles at each level, 28 levels deep, with no __noinline__: NVRTC inlines for many
// minutes. The worker test cancels its compilation by closing the worker's input.

__device__ float f0(float x) {
  return sqrtf(x * 3.0f + 1.0f) * sinf(x);
}

__device__ float f1(float x) {
  float tmp1 = f0(x) * 1.5f;
  return tmp1 + f0(x + 1.0f) * cosf(x);
}

__device__ float f2(float x) {
  float tmp1 = f1(x) * 1.5f;
  return tmp1 + f1(x + 2.0f) * cosf(x);
}

__device__ float f3(float x) {
  float tmp1 = f2(x) * 1.5f;
  return tmp1 + f2(x + 3.0f) * cosf(x);
}

__device__ float f4(float x) {
  float tmp1 = f3(x) * 1.5f;
  return tmp1 + f3(x + 4.0f) * cosf(x);
}

__device__ float f5(float x) {
  float tmp1 = f4(x) * 1.5f;
  return tmp1 + f4(x + 5.0f) * cosf(x);
}

__device__ float f6(float x) {
  float tmp1 = f5(x) * 1.5f;
  return tmp1 + f5(x + 6.0f) * cosf(x);
}

__device__ float f7(float x) {
  float tmp1 = f6(x) * 1.5f;
  return tmp1 + f6(x + 7.0f) * cosf(x);
}

__device__ float f8(float x) {
  float tmp1 = f7(x) * 1.5f;
  return tmp1 + f7(x + 8.0f) * cosf(x);
}

__device__ float f9(float x) {
  float tmp1 = f8(x) * 1.5f;
  return tmp1 + f8(x + 9.0f) * cosf(x);
}

__device__ float f10(float x) {
  float tmp1 = f9(x) * 1.5f;
  return tmp1 + f9(x + 10.0f) * cosf(x);
}

__device__ float f11(float x) {
  float tmp1 = f10(x) * 1.5f;
  return tmp1 + f10(x + 11.0f) * cosf(x);
}

__device__ float f12(float x) {
  float tmp1 = f11(x) * 1.5f;
  return tmp1 + f11(x + 12.0f) * cosf(x);
}

__device__ float f13(float x) {
  float tmp1 = f12(x) * 1.5f;
  return tmp1 + f12(x + 13.0f) * cosf(x);
}

__device__ float f14(float x) {
  float tmp1 = f13(x) * 1.5f;
  return tmp1 + f13(x + 14.0f) * cosf(x);
}

__device__ float f15(float x) {
  float tmp1 = f14(x) * 1.5f;
  return tmp1 + f14(x + 15.0f) * cosf(x);
}

__device__ float f16(float x) {
  float tmp1 = f15(x) * 1.5f;
  return tmp1 + f15(x + 16.0f) * cosf(x);
}

__device__ float f17(float x) {
  float tmp1 = f16(x) * 1.5f;
  return tmp1 + f16(x + 17.0f) * cosf(x);
}

__device__ float f18(float x) {
  float tmp1 = f17(x) * 1.5f;
  return tmp1 + f17(x + 18.0f) * cosf(x);
}

__device__ float f19(float x) {
  float tmp1 = f18(x) * 1.5f;
  return tmp1 + f18(x + 19.0f) * cosf(x);
}

__device__ float f20(float x) {
  float tmp1 = f19(x) * 1.5f;
  return tmp1 + f19(x + 20.0f) * cosf(x);
}

__device__ float f21(float x) {
  float tmp1 = f20(x) * 1.5f;
  return tmp1 + f20(x + 21.0f) * cosf(x);
}

__device__ float f22(float x) {
  float tmp1 = f21(x) * 1.5f;
  return tmp1 + f21(x + 22.0f) * cosf(x);
}

__device__ float f23(float x) {
  float tmp1 = f22(x) * 1.5f;
  return tmp1 + f22(x + 23.0f) * cosf(x);
}

__device__ float f24(float x) {
  float tmp1 = f23(x) * 1.5f;
  return tmp1 + f23(x + 24.0f) * cosf(x);
}

__device__ float f25(float x) {
  float tmp1 = f24(x) * 1.5f;
  return tmp1 + f24(x + 25.0f) * cosf(x);
}

__device__ float f26(float x) {
  float tmp1 = f25(x) * 1.5f;
  return tmp1 + f25(x + 26.0f) * cosf(x);
}

__device__ float f27(float x) {
  float tmp1 = f26(x) * 1.5f;
  return tmp1 + f26(x + 27.0f) * cosf(x);
}

extern "C" __global__ void k(float* __restrict__ o) {
  o[((int)threadIdx.x)] = f27(((float)(((int)threadIdx.x))));
}
