// Host emulation (see ../host_emulation.rs): runs the region split (tracer_tendency_boundary, then
// tracer_tendency_interior) and tracer_tendency (whose warp vote is per lane here: the per-point dynamic
// path wherever a wall lowers an order) of one module over a small grid with random tracer and velocities of
// both signs, and prints the largest difference relative to the largest tendency. Arguments: nx ny nz and
// the three bounded flags. REAL and K are defined before this file.
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cmath>
static double rnd(unsigned long long& s) { s = s * 6364136223846793005ULL + 1442695040888963407ULL; return ((s >> 11) * (1.0 / 9007199254740992.0)); }
int main(int argc, char** argv) {
  const int nx = atoi(argv[1]), ny = atoi(argv[2]), nz = atoi(argv[3]); const int h = 6;
  const int bxf = atoi(argv[4]), byf = atoi(argv[5]), bzf = atoi(argv[6]);
  const int sy = nx + 2*h, sz = sy * (ny + 2*h), len = sz * (nz + 2*h), off = h * (1 + sy + sz);
  unsigned long long seed = 12345;
  const int S = 2 * K + 2;
  // the flux buffer starts as garbage: every read slot must have been written by part 1
  std::vector<REAL> c(len), u(len), v(len), w(len), g1(len, 0), g2(len, 0), gtab(1, 0), fb(S * (ny * nz + nx * nz + nx * ny), (REAL)1e30);
  std::vector<int> act(len, 1);
  for (int i = 0; i < len; i++) { c[i] = 1 + sin(i * 0.37) + 0.3 * rnd(seed); u[i] = 2*rnd(seed)-1; v[i] = 2*rnd(seed)-1; w[i] = 2*rnd(seed)-1; }
  for (int l = 0; l < nz; l++) for (int j = 0; j < ny; j++) { if (bxf) { u[off + 0 + j*sy + l*sz] = 0; u[off + nx + j*sy + l*sz] = 0; } }
  for (int l = 0; l < nz; l++) for (int i = 0; i < nx; i++) { if (byf) { v[off + i + l*sz] = 0; v[off + i + ny*sy + l*sz] = 0; } }
  for (int j = 0; j < ny; j++) for (int i = 0; i < nx; i++) { if (bzf) { w[off + i + j*sy] = 0; w[off + i + j*sy + nz*sz] = 0; } }
  blockDim = {32, 8, 1};
  for (unsigned bz_ = 0; bz_ < (unsigned)nz; bz_++) for (unsigned by_ = 0; by_ < (ny + 7u) / 8; by_++) for (unsigned bx_ = 0; bx_ < (nx + 31u) / 32; bx_++)
  for (unsigned ty = 0; ty < 8; ty++) for (unsigned tx = 0; tx < 32; tx++) {
    blockIdx = {bx_, by_, bz_}; threadIdx = {tx, ty, 0};
    tracer_tendency(c.data(), u.data(), v.data(), w.data(), act.data(), g1.data(), gtab.data(), nx, ny, nz, sy, sz, off, bxf, byf, bzf, 1.0, 1.0, 1.0, 0, 0, 0, nx, ny, nz);
  }
  int total = (bxf ? 2*ny*nz : 0) + (byf ? S*nx*nz : 0) + (bzf ? S*nx*ny : 0);
  blockDim = {256, 1, 1};
  for (unsigned b = 0; b < (total + 255u) / 256; b++) for (unsigned t = 0; t < 256; t++) {
    blockIdx = {b, 0, 0}; threadIdx = {t, 0, 0};
    tracer_tendency_boundary(c.data(), u.data(), v.data(), w.data(), act.data(), fb.data(), gtab.data(), nx, ny, nz, sy, sz, off, bxf, byf, bzf);
  }
  blockDim = {32, 8, 1};
  for (unsigned bz_ = 0; bz_ < (unsigned)nz; bz_++) for (unsigned by_ = 0; by_ < (ny + 7u) / 8; by_++) for (unsigned bx_ = 0; bx_ < (nx + 31u) / 32; bx_++)
  for (unsigned ty = 0; ty < 8; ty++) for (unsigned tx = 0; tx < 32; tx++) {
    blockIdx = {bx_, by_, bz_}; threadIdx = {tx, ty, 0};
    tracer_tendency_interior(c.data(), u.data(), v.data(), w.data(), act.data(), g2.data(), fb.data(), gtab.data(), nx, ny, nz, sy, sz, off, bxf, byf, bzf, 1.0, 1.0, 1.0, 0, 0, 0, nx, ny, nz);
  }
  double worst = 0, scale = 0;
  for (int l = 0; l < nz; l++) for (int j = 0; j < ny; j++) for (int i = 0; i < nx; i++) {
    int idx = off + i + j*sy + l*sz; scale = fmax(scale, fabs((double)g1[idx])); worst = fmax(worst, fabs((double)g1[idx] - (double)g2[idx]));
  }
  printf("%.3e\n", worst / scale);
  return 0;
}
