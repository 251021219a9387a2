// What reading a zip member costs (util/zip_archive.hpp; docs/performance.md): for one member of
// an archive (default: its largest), the time to read it through in 1 MiB reads (MB/s of output),
// then on a fresh cursor the GPU-code scan's pattern (the first 64 bytes, the last 64 KiB, then
// forward through the middle third in 64-byte reads 150 kB apart: an ELF header, its section
// headers, a section's headers), with the bytes inflated against the member's size, the restarts
// and the checkpoints; and this process's peak RSS (VmHWM) before and after.
//
// Build: cmake --build build --target zip_member_bench
// Run:   build/tests/zip_member_bench ARCHIVE [MEMBER]
#include "util/zip_archive.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

namespace {

long peak_rss_kib() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    return -1;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
    using namespace cudacheck;
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: %s ARCHIVE [MEMBER]\n", argv[0]);
        return 2;
    }
    const long rss_start = peak_rss_kib();
    auto start = std::chrono::steady_clock::now();
    Expected<ZipArchive> archive = ZipArchive::open(argv[1]);
    if (!archive) {
        std::fprintf(stderr, "%s: %s\n", argv[1], archive.error().message.c_str());
        return 1;
    }
    std::printf("opened: %zu members in %.3f ms\n", archive->members().size(), seconds_since(start) * 1e3);
    const ZipMember* member = nullptr;
    if (argc == 3) {
        member = archive->find(argv[2]);
    } else {
        for (const ZipMember& candidate : archive->members())
            if (member == nullptr || candidate.uncompressed_size > member->uncompressed_size) member = &candidate;
    }
    if (member == nullptr) {
        std::fprintf(stderr, "no such member\n");
        return 1;
    }
    std::printf("member: %s, %llu bytes, %llu compressed, method %u\n", member->name.c_str(),
                static_cast<unsigned long long>(member->uncompressed_size),
                static_cast<unsigned long long>(member->compressed_size), member->method);

    Expected<std::unique_ptr<ZipMemberSource>> through = archive->open_member(*member);
    if (!through) {
        std::fprintf(stderr, "%s\n", through.error().message.c_str());
        return 1;
    }
    const std::uint64_t size = (*through)->size();
    start = std::chrono::steady_clock::now();
    for (std::uint64_t offset = 0; offset < size; offset += ByteSource::max_read) {
        const std::size_t length =
            static_cast<std::size_t>(std::min<std::uint64_t>(ByteSource::max_read, size - offset));
        const Expected<std::span<const std::uint8_t>> read = (*through)->read(offset, length);
        if (!read) {
            std::fprintf(stderr, "%s\n", read.error().message.c_str());
            return 1;
        }
    }
    const double through_seconds = seconds_since(start);
    const ZipReadCounters counters = (*through)->counters();
    std::printf("read through: %.3f s, %.0f MB/s of output, %u checkpoints every %llu bytes\n", through_seconds,
                static_cast<double>(size) / 1e6 / through_seconds, counters.checkpoints,
                static_cast<unsigned long long>(counters.checkpoint_interval));

    Expected<std::unique_ptr<ZipMemberSource>> scan = archive->open_member(*member);
    if (!scan) return 1;
    start = std::chrono::steady_clock::now();
    bool ok = static_cast<bool>((*scan)->read(0, std::min<std::uint64_t>(64, size)));
    if (size >= 65536) ok = ok && (*scan)->read(size - 65536, 65536);
    for (std::uint64_t offset = size / 3; ok && offset + 64 <= size * 2 / 3; offset += 150000)
        ok = static_cast<bool>((*scan)->read(offset, 64));
    const double scan_seconds = seconds_since(start);
    const ZipReadCounters scanned = (*scan)->counters();
    std::printf("scan pattern: %s, %.3f s, %llu bytes inflated (%.2fx the member), %u restart(s)\n",
                ok ? "read" : "FAILED", scan_seconds, static_cast<unsigned long long>(scanned.bytes_inflated),
                size > 0 ? static_cast<double>(scanned.bytes_inflated) / static_cast<double>(size) : 0.0,
                scanned.restarts);
    std::printf("peak RSS: %ld KiB at start, %ld KiB at the end\n", rss_start, peak_rss_kib());
    return ok ? 0 : 1;
}
