// How long driver.kernel_log takes to read and parse a 1 MB kernel log (docs/performance.md, "Kernel
// log"): the parser alone on the text, and read_kernel_log on a file standing in for /dev/kmsg
// (records, as /dev/kmsg gives them), for a log that is mostly other drivers' lines and for one that
// is all Xid lines (an Xid storm, the parser's worst case); then this machine's own /dev/kmsg where
// it may be read. Prints the median and the slowest of the runs, in milliseconds.
//
// Build: cmake --build build --target kernel_log_bench
// Run:   build/tests/kernel_log_bench [RUNS [LINES]]   (default 51 runs)
// LINES: a file of real kernel-log lines (docs/examples/h100/issue38/dmesg-after.txt: the GPU
// machine's boot lines and a real Xid 31), repeated to 1 MiB as bench/issue38_on_gpu.sh does there.
#include "probes/kernel_log.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <sys/klog.h>
#include <unistd.h>
#include <vector>

namespace {

using cudacheck::KernelLogParser;
using cudacheck::KernelLogReading;
using cudacheck::KernelLogSettings;

constexpr std::size_t log_bytes = std::size_t{1} << 20;

// Lines as a server's kernel log holds them (the project's machines' /dev/kmsg), and the driver's.
constexpr const char* other_lines[] = {
    "usb 1-1: new high-speed USB device number 2 using xhci_hcd",
    "EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none.",
    "audit: type=1400 audit(1733370000.123:45): apparmor=\"STATUS\" operation=\"profile_load\" name=\"docker\"",
    "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready",
    "nvme nvme0: 32/0/0 default/read/poll queues",
    "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
};
constexpr const char* driver_lines[] = {
    "NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob, channel 0x0000000a, intr 00000000. MMU Fault: ENGINE "
    "GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x83a4_5de00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE",
    "NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception on (GPC 7, TPC 7, "
    "SM 0): Illegal Instruction Parameter",
    "NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab",
};

// /dev/kmsg records ("prio,seq,usec,-;text"), one in `driver_every` the driver's, to 1 MiB.
std::string make_log(std::size_t driver_every) {
    std::string log;
    for (std::size_t sequence = 0; log.size() < log_bytes; ++sequence) {
        const bool driver = driver_every != 0 && sequence % driver_every == 0;
        const char* text = driver ? driver_lines[sequence % 3] : other_lines[sequence % 6];
        std::string record = std::to_string(driver ? 4 : 6) + "," + std::to_string(sequence) + "," +
                             std::to_string(1000000 + sequence * 1000) + ",-;" + text + "\n";
        if (log.size() + record.size() > log_bytes) break;
        log += record;
    }
    return log;
}

// The lines of `path` repeated, whole, while the text stays within 1 MiB.
std::string repeated_to_a_mebibyte(const char* path) {
    std::ifstream in(path, std::ios::binary);
    const std::string lines((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::string log;
    while (!lines.empty() && log.size() + lines.size() <= log_bytes) log += lines;
    return log;
}

double milliseconds(const std::function<void()>& work) {
    const auto start = std::chrono::steady_clock::now();
    work();
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

void report(const char* what, std::vector<double> times, std::size_t events) {
    std::sort(times.begin(), times.end());
    std::printf("%-44s median %7.3f ms  slowest %7.3f ms  (%zu runs, %zu events)\n", what, times[times.size() / 2],
                times.back(), times.size(), events);
}

void measure(const char* name, const std::string& log, int runs) {
    std::vector<double> parse_times, read_times;
    std::size_t events = 0;
    for (int run = 0; run < runs; ++run)
        parse_times.push_back(milliseconds([&] {
            KernelLogParser parser;
            parser.add_text(log);
            events = parser.events().size();
        }));
    report((std::string(name) + ": parse_kernel_log").c_str(), parse_times, events);

    char path[] = "/tmp/kernel-log-bench-XXXXXX";
    const int fd = ::mkstemp(path);
    if (fd < 0) return;
    ::close(fd);
    std::ofstream(path, std::ios::binary) << log;
    for (int run = 0; run < runs; ++run)
        read_times.push_back(milliseconds([&] {
            const KernelLogReading reading = cudacheck::read_kernel_log(KernelLogSettings{.path = path});
            events = reading.events.size();
        }));
    report((std::string(name) + ": read_kernel_log (a file)").c_str(), read_times, events);
    ::unlink(path);
}

// The kernel's own cost, without the parser: every /dev/kmsg record read one read(2) at a time, and
// the whole ring buffer in one syslog(2) SYSLOG_ACTION_READ_ALL; the per-record and per-byte figures
// carry this machine's log over to a 1 MB one (docs/performance.md, "Kernel log").
void measure_sources(int runs) {
    std::vector<double> kmsg_times, syslog_times;
    std::size_t records = 0, kmsg_bytes = 0, syslog_bytes = 0;
    std::string buffer(16384, '\0');
    for (int run = 0; run < runs; ++run) {
        const int fd = ::open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) break;
        records = kmsg_bytes = 0;
        kmsg_times.push_back(milliseconds([&] {
            for (;;) {
                const ssize_t n = ::read(fd, buffer.data(), buffer.size());
                if (n < 0 && errno == EPIPE) continue;
                if (n <= 0) break;
                ++records;
                kmsg_bytes += static_cast<std::size_t>(n);
            }
        }));
        ::close(fd);
    }
    const int size = ::klogctl(10, nullptr, 0);  // SYSLOG_ACTION_SIZE_BUFFER
    std::string all(size > 0 ? static_cast<std::size_t>(size) : 0, '\0');
    for (int run = 0; size > 0 && run < runs; ++run) {
        int n = 0;
        syslog_times.push_back(milliseconds([&] { n = ::klogctl(3, all.data(), size); }));  // READ_ALL
        if (n < 0) {
            syslog_times.clear();
            break;
        }
        syslog_bytes = static_cast<std::size_t>(n);
    }
    if (!kmsg_times.empty() && records != 0) {
        report("this machine: /dev/kmsg, read(2) only", kmsg_times, 0);
        std::sort(kmsg_times.begin(), kmsg_times.end());
        std::printf("  %zu records, %zu bytes: %.3f us a record\n", records, kmsg_bytes,
                    kmsg_times[kmsg_times.size() / 2] * 1000.0 / static_cast<double>(records));
    }
    if (!syslog_times.empty() && syslog_bytes != 0) {
        report("this machine: syslog(2) READ_ALL only", syslog_times, 0);
        std::sort(syslog_times.begin(), syslog_times.end());
        std::printf("  %zu bytes of a %d-byte buffer: %.3f ms a MiB\n", syslog_bytes, size,
                    syslog_times[syslog_times.size() / 2] * static_cast<double>(1 << 20) /
                        static_cast<double>(syslog_bytes));
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 51;
    const std::string typical = make_log(100);
    const std::string storm = make_log(1);
    std::printf("logs of %zu and %zu bytes\n", typical.size(), storm.size());
    measure("1 MB, 1% of the driver", typical, runs);
    measure("1 MB, all Xid lines", storm, runs);
    if (argc > 2) {
        const std::string real = repeated_to_a_mebibyte(argv[2]);
        std::printf("%s repeated: %zu bytes\n", argv[2], real.size());
        if (!real.empty()) measure("1 MB of LINES repeated", real, runs);
    }

    measure_sources(runs);
    std::vector<double> times;
    KernelLogReading last;
    for (int run = 0; run < runs; ++run)
        times.push_back(milliseconds([&] { last = cudacheck::read_kernel_log(KernelLogSettings{}); }));
    if (!last.readable) {
        std::printf("this machine's kernel log: %s\n", last.unreadable.c_str());
        return 0;
    }
    std::printf("this machine's kernel log: %s, %zu records, %zu bytes\n", last.source.c_str(), last.lines, last.bytes);
    report("this machine: read_kernel_log", times, last.events.size());
    return 0;
}
