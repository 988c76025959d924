// Host emulation of the shell strategy (see ../host_emulation.rs): reads a problem written by the test, runs
// tracer_tendency_shell over the launch geometry the test passes (that of the host's launch) and
// tracer_tendency (whose warp vote is per lane here: the per-point dynamic path wherever a wall lowers an
// order) of one module, and writes both tendencies. The shell's output starts as NaN, so a cell it never writes
// shows, and so does a halo cell it writes. Arguments: input output nx ny nz bx by bz h block_height gx gy
// shell_planes inner_planes inv_dx inv_dy inv_dz i0 j0 l0 ni nj nl (the inner box). Input: the float64 arrays c, u, v, w and act (0 solid, 1 fluid), each of the
// layout's length; output: the shell's tendency, then tracer_tendency's, as float64. REAL and K are defined
// before this file.
#include <vector>
#include <cstdio>
#include <cstdlib>
#include <cmath>
static std::vector<double> read_all(const char* path, size_t n) {
  std::vector<double> out(n);
  FILE* f = fopen(path, "rb");
  if (!f || fread(out.data(), sizeof(double), n, f) != n) { fprintf(stderr, "cannot read %s\n", path); exit(2); }
  fclose(f);
  return out;
}
int main(int argc, char** argv) {
  if (argc != 24) { fprintf(stderr, "expected 23 arguments\n"); return 2; }
  const int nx = atoi(argv[3]), ny = atoi(argv[4]), nz = atoi(argv[5]);
  const int bxf = atoi(argv[6]), byf = atoi(argv[7]), bzf = atoi(argv[8]), h = atoi(argv[9]);
  const unsigned height = atoi(argv[10]), gx = atoi(argv[11]), gy = atoi(argv[12]);
  const int shell_planes = atoi(argv[13]), inner_planes = atoi(argv[14]);
  const REAL ix = (REAL)atof(argv[15]), iy = (REAL)atof(argv[16]), iz = (REAL)atof(argv[17]);
  const int i0 = atoi(argv[18]), j0 = atoi(argv[19]), l0 = atoi(argv[20]), ni = atoi(argv[21]), nj = atoi(argv[22]), nl = atoi(argv[23]);
  const int sy = nx + 2*h, sz = sy * (ny + 2*h), len = sz * (nz + 2*h), off = h * (1 + sy + sz);
  std::vector<double> in = read_all(argv[1], 5 * (size_t)len);
  std::vector<REAL> c(len), u(len), v(len), w(len), g1(len, 0), g2(len, (REAL)NAN), gtab(1, 0);
  std::vector<int> act(len);
  for (int i = 0; i < len; i++) {
    c[i] = (REAL)in[i]; u[i] = (REAL)in[len + i]; v[i] = (REAL)in[2*len + i]; w[i] = (REAL)in[3*len + i];
    act[i] = (int)in[4*len + i];
  }
  blockDim = {32, 8, 1};
  gridDim = {(nx + 31u) / 32, (ny + 7u) / 8, (unsigned)nz};
  for (unsigned bz_ = 0; bz_ < (unsigned)nz; bz_++) for (unsigned by_ = 0; by_ < (ny + 7u) / 8; by_++) for (unsigned bx_ = 0; bx_ < (nx + 31u) / 32; bx_++)
  for (unsigned ty = 0; ty < 8; ty++) for (unsigned tx = 0; tx < 32; tx++) {
    blockIdx = {bx_, by_, bz_}; threadIdx = {tx, ty, 0};
    tracer_tendency(c.data(), u.data(), v.data(), w.data(), act.data(), g1.data(), gtab.data(), nx, ny, nz, sy, sz, off, bxf, byf, bzf, ix, iy, iz, 0, 0, 0, nx, ny, nz);
  }
  blockDim = {32, height, 1};
  gridDim = {gx, gy, (unsigned)(shell_planes + inner_planes)};
  for (unsigned bz_ = 0; bz_ < gridDim.z; bz_++) for (unsigned by_ = 0; by_ < gy; by_++) for (unsigned bx_ = 0; bx_ < gx; bx_++)
  for (unsigned ty = 0; ty < height; ty++) for (unsigned tx = 0; tx < 32; tx++) {
    blockIdx = {bx_, by_, bz_}; threadIdx = {tx, ty, 0};
    tracer_tendency_shell(c.data(), u.data(), v.data(), w.data(), act.data(), g2.data(), gtab.data(), nx, ny, nz, sy, sz, off, bxf, byf, bzf, ix, iy, iz, i0, j0, l0, ni, nj, nl, shell_planes);
  }
  std::vector<double> out(2 * (size_t)len);
  for (int i = 0; i < len; i++) { out[i] = (double)g2[i]; out[len + i] = (double)g1[i]; }
  FILE* f = fopen(argv[2], "wb");
  if (!f || fwrite(out.data(), sizeof(double), out.size(), f) != out.size()) { fprintf(stderr, "cannot write %s\n", argv[2]); return 2; }
  fclose(f);
  return 0;
}
