#!/usr/bin/env python3
"""Compiles CUDA C files with NVRTC (sm_90, C++17) and fails on any error or warning.

Usage: scripts/nvrtc_check.py [--lib PATH] [--ptxas] [--cubin-dir DIR] FILE.cu...   (a directory stands for its
*.cu files)

NVRTC is the one `bash scripts/install-nvrtc.sh` installs into .nvrtc/ of this checkout; `--lib` or
$SKC_NVRTC_PATH (the folder of libnvrtc.so.13, or the file) names another. Prints one line per file (`ok`, or the program log) and exits 1 if any file failed or
produced a warning.
"""
import ctypes
import os
import sys

DEFAULT_LIB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".nvrtc", "nvidia", "cu13", "lib")
OPTIONS = ["--gpu-architecture=sm_90", "-std=c++17"]


def load(path):
    if os.path.isdir(path):
        path = os.path.join(path, "libnvrtc.so.13")
    # libnvrtc dlopens libnvrtc-builtins by name: load it first from the same folder so no LD_LIBRARY_PATH is needed.
    folder = os.path.dirname(path)
    for name in sorted(os.listdir(folder or ".")):
        if name.startswith("libnvrtc-builtins.so"):
            ctypes.CDLL(os.path.join(folder, name), mode=ctypes.RTLD_GLOBAL)
            break
    lib = ctypes.CDLL(path)
    lib.nvrtcCreateProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_char_p, ctypes.c_char_p,
                                       ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p]
    lib.nvrtcCompileProgram.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    lib.nvrtcGetProgramLogSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.nvrtcGetProgramLog.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.nvrtcGetCUBINSize.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
    lib.nvrtcGetCUBIN.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    lib.nvrtcDestroyProgram.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    return lib


def compile_source(lib, source, name, options, cubin_out=None):
    """Returns (status, log)."""
    program = ctypes.c_void_p()
    status = lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), name.encode(), 0, None, None)
    if status != 0:
        return status, "nvrtcCreateProgram failed"
    opts = (ctypes.c_char_p * len(options))(*[o.encode() for o in options])
    status = lib.nvrtcCompileProgram(program, len(options), opts)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(program, log)
    if status == 0 and cubin_out:
        lib.nvrtcGetCUBINSize(program, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetCUBIN(program, cubin)
        with open(cubin_out, "wb") as f:
            f.write(cubin.raw)
    lib.nvrtcDestroyProgram(ctypes.byref(program))
    return status, log.value.decode(errors="replace").strip()


def main(argv):
    lib_path = os.environ.get("SKC_NVRTC_PATH", DEFAULT_LIB)
    options = list(OPTIONS)
    cubin_dir = None
    files = []
    args = iter(argv)
    for arg in args:
        if arg == "--lib":
            lib_path = next(args)
        elif arg == "--ptxas":
            options.append("--ptxas-options=-v")
        elif arg == "--cubin-dir":
            cubin_dir = next(args)
        elif os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg) if f.endswith(".cu"))
        else:
            files.append(arg)
    if not files:
        print(__doc__)
        return 2
    lib = load(lib_path)
    failed = 0
    for path in files:
        with open(path) as f:
            source = f.read()
        cubin = None
        if cubin_dir:
            os.makedirs(cubin_dir, exist_ok=True)
            cubin = os.path.join(cubin_dir, os.path.basename(path)[:-3] + ".cubin")
        # A program that launches kernels from the device compiles only as relocatable device code.
        relocatable = ["--relocatable-device-code=true"] if "<<<" in source else []
        status, log = compile_source(lib, source, os.path.basename(path), options + relocatable, cubin)
        verbose_only = "--ptxas-options=-v" in options
        noisy = log and not (verbose_only and all(
            l.startswith(("ptxas info", "ptxas  info", "    ", "ptxas info    :")) or not l.strip()
            for l in log.splitlines()))
        if status != 0 or noisy:
            failed += 1
            print(f"FAIL {path} (status {status})\n{log}\n")
        else:
            print(f"ok   {path}" + (f"\n{log}" if log else ""))
    print(f"{len(files) - failed}/{len(files)} compiled without errors or warnings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
