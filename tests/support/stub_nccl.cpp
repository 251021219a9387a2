// A stand-in libnccl.so.2 (test-only, never installed) with every entry point nccl.allreduce binds,
// each failing with ncclSystemError: the check's handling of NCCL's failures, without NCCL or a GPU.
// Signatures as nccl.h declares them, with the opaque types spelled as plain pointers.
#include <cstddef>

namespace {
constexpr int nccl_system_error = 2;  // ncclSystemError (nccl.h)
}  // namespace

extern "C" {
int ncclGetVersion(int*) { return nccl_system_error; }
int ncclCommInitAll(void**, int, const int*) { return nccl_system_error; }
int ncclCommDestroy(void*) { return 0; }
int ncclAllReduce(const void*, void*, std::size_t, int, int, void*, void*) { return nccl_system_error; }
int ncclGroupStart() { return nccl_system_error; }
int ncclGroupEnd() { return nccl_system_error; }
const char* ncclGetErrorString(int) { return "unhandled system error (stub)"; }
}
