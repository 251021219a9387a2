// What a scan of a library's GPU code costs on a cold page cache (issue 40; docs/performance.md,
// "Cold first run (frameworks' GPU code)"). For each file and each way of reading it, rounds of:
// evict the file from the page cache (posix_fadvise(POSIX_FADV_DONTNEED): no root needed, only the
// clean pages of files this process can open), check with mincore(2) that none of its pages is
// left, scan it (cold), scan it again (warm); it prints the median times, the bytes the disk moved
// for this process (/proc/self/io, read_bytes) and the pages resident after the cold scan. The ways:
//   mapped      the file mapped and advised random (SpanByteSource over MappedFile): inspect_file
//               before issue 40
//   mapped+walk MappedFileSource: the same mapping, and the scan reads the headers ahead in waves
//               (ReadAheadSource::will_need): inspect_file now
//   pread       FileByteSource behind a plain ByteSource, so the scan does not walk ahead
//   pread+walk  FileByteSource itself, with the walk
// Then all files at once, cold: one after the other (inspect_file), and on one thread each, as
// frameworks_probe scans a framework's libraries.
//
// Build: cmake --build build --target cold_gpu_code_bench
// Run:   build/tests/cold_gpu_code_bench [--rounds N] FILE...
//        build/tests/cold_gpu_code_bench --evict FILE...   (only evict, and say what was resident)
#include "cuda/gpu_code.hpp"
#include "util/file_source.hpp"
#include "util/mapped_file.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <memory>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

using namespace cudacheck;

std::uint64_t read_bytes() {
    std::ifstream io("/proc/self/io");
    std::string key;
    std::uint64_t value = 0;
    while (io >> key >> value)
        if (key == "read_bytes:") return value;
    return 0;
}

// Pages of `path` in the page cache, and its size in pages (mincore(2) on a mapping that touches
// nothing).
std::pair<std::uint64_t, std::uint64_t> resident_pages(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return {0, 0};
    struct stat status{};
    ::fstat(fd, &status);
    const auto size = static_cast<std::size_t>(status.st_size);
    const long page = ::sysconf(_SC_PAGESIZE);
    const std::size_t pages = (size + static_cast<std::size_t>(page) - 1) / static_cast<std::size_t>(page);
    void* map = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
    ::close(fd);
    if (map == MAP_FAILED) return {0, pages};
    std::vector<unsigned char> in_core(pages);
    std::uint64_t resident = 0;
    if (::mincore(map, size, in_core.data()) == 0)
        for (const unsigned char bit : in_core) resident += bit & 1;
    ::munmap(map, size);
    return {resident, pages};
}

bool evict(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool done = ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
    ::close(fd);
    return done;
}

// A source seen as a plain ByteSource: the scan does not know it takes hints.
class PlainSource final : public ByteSource {
public:
    explicit PlainSource(ByteSource& file) : file_(file) {}
    [[nodiscard]] std::uint64_t size() const override { return file_.size(); }
    [[nodiscard]] Expected<std::span<const std::uint8_t>> read(std::uint64_t offset, std::size_t length) override {
        return file_.read(offset, length);
    }
    [[nodiscard]] DataExtent find_data(std::uint64_t offset) override { return file_.find_data(offset); }

private:
    ByteSource& file_;
};

enum class Way { mapped, mapped_walk, pread, pread_walk };
const char* name_of(Way way) {
    switch (way) {
        case Way::mapped: return "mapped";
        case Way::mapped_walk: return "mapped+walk";
        case Way::pread: return "pread";
        case Way::pread_walk: return "pread+walk";
    }
    return "";
}

GpuCodeScan unreadable() {
    return GpuCodeScan{
        .kind = {}, .objects = {}, .fatbins = 0, .error = ScanError::unreadable, .error_message = "unreadable"};
}

std::unique_ptr<ReadAheadSource> open_source(Way way, const std::string& path) {
    if (way == Way::mapped_walk) {
        Expected<std::unique_ptr<MappedFileSource>> mapped = MappedFileSource::open(path);
        return mapped ? std::move(*mapped) : nullptr;
    }
    Expected<std::unique_ptr<FileByteSource>> file = FileByteSource::open(path);
    return file ? std::move(*file) : nullptr;
}

GpuCodeScan scan_with(Way way, const std::string& path) {
    if (way == Way::mapped) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        const Expected<MappedFile> mapped = MappedFile::open(path);
        if (!mapped || fd < 0) {
            if (fd >= 0) ::close(fd);
            return unreadable();
        }
        const std::uint64_t size = mapped->bytes().size();
        GpuCodeScan scan =
            scan_gpu_code(mapped->bytes(), [&](std::uint64_t offset) { return data_extent(fd, offset, size); });
        ::close(fd);
        return scan;
    }
    const std::unique_ptr<ReadAheadSource> source = open_source(way, path);
    if (!source) return unreadable();
    if (way != Way::pread) return scan_gpu_code(*source);
    PlainSource plain(*source);
    return scan_gpu_code(plain);
}

double median(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    return values.empty() ? 0.0 : values[values.size() / 2];
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string base_name(const std::string& path) { return path.substr(path.find_last_of('/') + 1); }

}  // namespace

int main(int argc, char** argv) {
    int rounds = 5;
    bool evict_only = false;
    std::vector<std::string> files;
    for (int i = 1; i < argc; ++i) {
        const std::string argument = argv[i];
        if (argument == "--rounds" && i + 1 < argc) rounds = std::max(1, std::atoi(argv[++i]));
        else if (argument == "--evict") evict_only = true;
        else files.push_back(argument);
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s [--rounds N] FILE...\n       %s --evict FILE...\n", argv[0], argv[0]);
        return 2;
    }
    if (evict_only) {
        bool all = true;
        for (const std::string& file : files) {
            const auto before = resident_pages(file);
            const bool done = evict(file);
            const auto after = resident_pages(file);
            std::printf("%s: %llu of %llu pages resident, %llu after eviction%s\n", file.c_str(),
                        static_cast<unsigned long long>(before.first), static_cast<unsigned long long>(before.second),
                        static_cast<unsigned long long>(after.first), done ? "" : " (posix_fadvise failed)");
            all = all && done && after.first == 0;
        }
        return all ? 0 : 1;
    }
    std::printf("%-28s %-11s %9s %5s %9s %9s %11s %11s %9s\n", "file", "read", "MB", "objs", "cold ms", "warm ms",
                "read MB", "resident MB", "hinted");
    for (const std::string& file : files) {
        for (const Way way : {Way::mapped, Way::mapped_walk, Way::pread, Way::pread_walk}) {
            std::vector<double> cold, warm, moved, resident;
            std::size_t objects = 0;
            std::uint64_t size_pages = 0;
            std::uint64_t hinted = 0;
            for (int round = 0; round < rounds; ++round) {
                evict(file);
                const auto left = resident_pages(file);
                if (left.first != 0)
                    std::fprintf(stderr, "%s: %llu pages still resident after eviction\n", file.c_str(),
                                 static_cast<unsigned long long>(left.first));
                size_pages = left.second;
                const std::uint64_t bytes_before = read_bytes();
                auto start = std::chrono::steady_clock::now();
                const GpuCodeScan scan = scan_with(way, file);
                cold.push_back(milliseconds_since(start));
                moved.push_back(static_cast<double>(read_bytes() - bytes_before) / 1e6);
                resident.push_back(static_cast<double>(resident_pages(file).first) * 4096 / 1e6);
                objects = scan.objects.size();
                if (scan.error != ScanError::none)
                    std::fprintf(stderr, "%s: %s\n", file.c_str(), scan.error_message.c_str());
                start = std::chrono::steady_clock::now();
                (void)scan_with(way, file);
                warm.push_back(milliseconds_since(start));
                if (way == Way::mapped_walk || way == Way::pread_walk) {  // header extents the walk started, cold
                    evict(file);
                    if (const std::unique_ptr<ReadAheadSource> counted = open_source(way, file)) {
                        (void)scan_gpu_code(*counted);
                        hinted = counted->counters().hinted;
                    }
                }
            }
            std::printf("%-28s %-11s %9.1f %5zu %9.1f %9.2f %11.2f %11.2f %9llu\n", base_name(file).c_str(),
                        name_of(way), static_cast<double>(size_pages) * 4096 / 1e6, objects, median(cold), median(warm),
                        median(moved), median(resident), static_cast<unsigned long long>(hinted));
        }
    }
    if (files.size() > 1) {
        std::vector<double> serial, parallel;
        for (int round = 0; round < rounds; ++round) {
            for (const std::string& file : files) evict(file);
            auto start = std::chrono::steady_clock::now();
            for (const std::string& file : files) (void)inspect_file(file);
            serial.push_back(milliseconds_since(start));
            for (const std::string& file : files) evict(file);
            start = std::chrono::steady_clock::now();
            std::vector<std::thread> threads;
            for (const std::string& file : files) threads.emplace_back([&file] { (void)inspect_file(file); });
            for (std::thread& thread : threads) thread.join();
            parallel.push_back(milliseconds_since(start));
        }
        std::printf(
            "all %zu files cold with inspect_file: %.1f ms one after the other, %.1f ms on a thread each "
            "(medians of %d)\n",
            files.size(), median(serial), median(parallel), rounds);
    }
    return 0;
}
