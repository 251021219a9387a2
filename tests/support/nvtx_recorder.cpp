// A stand-in for a profiler's NVTX injection library (what `nsys profile` loads through
// NVTX_INJECTION64_PATH): it subscribes to NVTX's core callbacks, as NVIDIA's NVTX documentation
// describes (InitializeInjectionNvtx2 and the export table of callbacks), and appends one line per
// call to the file NVTX_RECORDER_FILE names: "push <thread> <name>", "pop <thread>", "thread <id>
// <name>". Test-only; tests/unit/util/nvtx_test.cpp reads it.
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

std::mutex file_mutex;

void append(const char* kind, unsigned long thread, const char* name) {
    const char* path = std::getenv("NVTX_RECORDER_FILE");
    if (path == nullptr) return;
    const std::lock_guard<std::mutex> lock(file_mutex);
    if (FILE* file = std::fopen(path, "a")) {
        std::fprintf(file, "%s %lu%s%s\n", kind, thread, name != nullptr ? " " : "", name != nullptr ? name : "");
        std::fclose(file);
    }
}

unsigned long this_thread() { return static_cast<unsigned long>(::syscall(SYS_gettid)); }

int NVTX_API range_push(const char* name) {
    append("push", this_thread(), name);
    return 0;
}
int NVTX_API range_pop() {
    append("pop", this_thread(), nullptr);
    return 0;
}
void NVTX_API name_os_thread(uint32_t thread, const char* name) { append("thread", thread, name); }

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(
    NvtxGetExportTableFunc_t get_export_table) {
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(get_export_table(NVTX_ETID_CALLBACKS));
    if (callbacks == nullptr) return 0;
    NvtxFunctionTable table = nullptr;
    unsigned int size = 0;
    if (callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) == 0 || table == nullptr) return 0;
    if (size > NVTX_CBID_CORE_RangePushA)
        *table[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(&range_push);
    if (size > NVTX_CBID_CORE_RangePop)
        *table[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&range_pop);
    if (size > NVTX_CBID_CORE_NameOsThreadA)
        *table[NVTX_CBID_CORE_NameOsThreadA] = reinterpret_cast<NvtxFunctionPointer>(&name_os_thread);
    return 1;
}
