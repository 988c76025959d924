// NVRTC 13.0 crashes (segmentation fault in its front end) on this valid C++: a conditional operator whose
// operands are class prvalues, one with a non-constant member, used as an element of a braced initialiser.
// skc's emitter never writes this shape (it binds such a conditional to a temporary first); the worker tests use
// it to show that the crash is contained.
struct a { int f; int g; };
struct b { float x; a y; };

extern "C" __global__ void k(b* o, int v, bool c) {
    o[0] = b{1.0f, c ? a{0, v} : a{1, 2}};
}
