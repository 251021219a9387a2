// cuda.p2p: between every ordered pair of the selected GPUs, whether one can access the other's
// memory (cudaDeviceCanAccessPeer), a peer copy (cudaMemcpyPeerAsync, with peer access enabled
// where possible) verified on the receiving GPU, its bandwidth (CUDA events, median after warm-up,
// both GPUs held alone), and the link between them as NVML reports it (NVLink or the PCIe path).
#include "checks/cuda_p2p.hpp"
#include "checks/checks.hpp"
#include "gpu/cuda_runtime.hpp"
#include "kernels/compare.cuh"
#include "kernels/random_fill.cuh"
#include "probes/nvml/gpu_sharing.hpp"
#include "probes/probes.hpp"
#include "util/units.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

namespace cudacheck {

namespace {

constexpr MetricFamily peer_bandwidth{"p2p_bandwidth", "peer_bandwidth_{device}_to_{peer_device}", Unit::gb_per_s,
                                      "Verified peer copy bandwidth from the gpu to the peer_gpu."};
constexpr MetricFamily min_peer_bandwidth{"p2p_min_bandwidth", "min_peer_bandwidth", Unit::gb_per_s,
                                          "The lowest peer copy bandwidth of the node."};

struct P2pSizes {
    std::size_t bytes;  // per copy: far beyond L2, a few milliseconds even over NVLink
    int runs;
};

P2pSizes sizes_for(Level level) {
    if (level == Level::full) return {std::size_t{1} << 30, 20};
    return {std::size_t{256} << 20, 5};
}

// A copy below this share of the link's rate is "far below" it. The rates are floors already
// (nvml_topology.hpp): a copy staged through host memory, a link down, or a PCIe fallback lands
// well under it, while healthy links measure 70-90% of their peak.
constexpr double low_fraction = 0.25;

double gigabytes_per_second(std::size_t bytes, double milliseconds) {
    return static_cast<double>(bytes) / (milliseconds * 1e-3) / 1e9;
}

// Different data from every source GPU, so that a copy from the wrong GPU (or none) shows.
std::uint64_t seed_of(int device) { return 0x9E37 + static_cast<std::uint64_t>(device); }

// Why NVML says the pair should have peer access, or nullopt when it does not say so.
std::optional<std::string> access_expected(const std::optional<NvmlPeerLink>& link) {
    if (!link) return std::nullopt;
    if (link->nvlink.value_or(false)) return std::string("NVML reports NVLink between them");
    if (link->p2p_read.value_or(false))
        return std::string("NVML reports peer-to-peer reads as supported on their PCIe path");
    return std::nullopt;
}

// Buffers on one GPU: its own random data (the source of its copies), the landing place of copies
// from its peers, and the expected data, regenerated for each sender.
struct DeviceBuffers {
    DeviceBuffers(int device, std::size_t words) : source(words), destination(words), expected(words), mismatches(1) {
        gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(source.data(), kernels::Element::f32, words,
                                                                  seed_of(device), stream.get())),
                   "fill kernel");
    }
    gpu::Stream stream;
    gpu::DeviceArray<std::uint32_t> source;
    gpu::DeviceArray<std::uint32_t> destination;
    gpu::DeviceArray<std::uint32_t> expected;
    gpu::DeviceArray<unsigned long long> mismatches;
};

// Enables peer access from the current device to `peer` for a scope and disables it after, so the
// per-device checks running meanwhile find the contexts as they were. Already enabled (by another
// check) counts as enabled and is left on.
class PeerAccess {
public:
    PeerAccess(int device, int peer) : device_(device), peer_(peer) {
        const cudaError_t error = cudaDeviceEnablePeerAccess(peer, 0);
        if (error == cudaErrorPeerAccessAlreadyEnabled) {
            (void)cudaGetLastError();
            return;
        }
        gpu::check(error, fmt::format("cudaDeviceEnablePeerAccess({} -> {})", device, peer));
        owned_ = true;
    }
    PeerAccess(const PeerAccess&) = delete;
    PeerAccess& operator=(const PeerAccess&) = delete;
    ~PeerAccess() {
        if (!owned_) return;
        int current = device_;
        cudaGetDevice(&current);
        cudaSetDevice(device_);
        cudaDeviceDisablePeerAccess(peer_);
        cudaSetDevice(current);
    }

private:
    int device_;
    int peer_;
    bool owned_ = false;
};

PeerCopy copy_between(int source, int destination, std::vector<std::unique_ptr<DeviceBuffers>>& buffers,
                      std::size_t source_index, std::size_t destination_index, int runs) {
    PeerCopy copy;
    copy.source = source;
    copy.destination = destination;
    int can_access = 0;
    gpu::check(cudaDeviceCanAccessPeer(&can_access, source, destination),
               fmt::format("cudaDeviceCanAccessPeer({}, {})", source, destination));
    copy.can_access = can_access != 0;
    DeviceBuffers& from = *buffers[source_index];
    DeviceBuffers& to = *buffers[destination_index];
    copy.words = from.source.size();

    std::optional<gpu::DevicesWork> gpu_work(std::vector<int>{source, destination});
    gpu::check(cudaSetDevice(destination), fmt::format("cudaSetDevice({})", destination));
    gpu::check(cudaMemsetAsync(to.destination.data(), 0xFF, to.destination.bytes(), to.stream.get()),
               "cudaMemsetAsync");
    to.stream.synchronize();
    gpu::check(cudaSetDevice(source), fmt::format("cudaSetDevice({})", source));
    // Without peer access the runtime stages the copy through host memory: still a copy to verify
    // and time, and the bandwidth then shows what that costs.
    std::optional<PeerAccess> access;
    if (copy.can_access) access.emplace(source, destination);
    const std::vector<float> samples =
        gpu::time_on_devices({gpu::DeviceStream{source, &from.stream}}, gpu_work, 1, runs, [&] {
            gpu::check(cudaMemcpyPeerAsync(to.destination.data(), destination, from.source.data(), source,
                                           from.source.bytes(), from.stream.get()),
                       fmt::format("cudaMemcpyPeerAsync({} -> {})", source, destination));
        });
    from.stream.synchronize();
    access.reset();

    gpu::check(cudaSetDevice(destination), fmt::format("cudaSetDevice({})", destination));
    gpu::check(static_cast<cudaError_t>(kernels::fill_uniform(to.expected.data(), kernels::Element::f32,
                                                              to.expected.size(), seed_of(source), to.stream.get())),
               "fill kernel");
    gpu::check(static_cast<cudaError_t>(kernels::count_mismatches(to.expected.data(), to.destination.data(),
                                                                  to.expected.size(), to.mismatches.data(),
                                                                  to.stream.get())),
               "compare kernel");
    unsigned long long wrong = 0;
    gpu::check(cudaMemcpyAsync(&wrong, to.mismatches.data(), sizeof wrong, cudaMemcpyDeviceToHost, to.stream.get()),
               "cudaMemcpyAsync");
    to.stream.synchronize();
    copy.wrong_words = wrong;
    copy.bandwidth_gbps = gigabytes_per_second(from.source.bytes(), gpu::median(samples));
    return copy;
}

void run_p2p(CheckContext& context, ResultBuilder& result) {
    const std::vector<int>& devices = context.devices;
    const P2pSizes sizes = sizes_for(context.options.level);
    // Every GPU check of these devices runs at once: take at most an eighth of the smallest free
    // memory per buffer (three buffers per GPU), so a small GPU is tested with smaller copies.
    const std::size_t bytes = gpu::bytes_fitting(devices, sizes.bytes, 8);
    const std::size_t words = std::max<std::size_t>(bytes / 4, 1);

    std::vector<std::unique_ptr<DeviceBuffers>> buffers;
    {
        const gpu::DevicesWork gpu_work(devices);
        for (int device : devices) {
            gpu::check(cudaSetDevice(device), fmt::format("cudaSetDevice({})", device));
            buffers.push_back(std::make_unique<DeviceBuffers>(device, words));
        }
        for (const auto& device_buffers : buffers) device_buffers->stream.synchronize();
    }

    std::vector<std::string> bus_ids;
    const DriverFacts& driver = context.probes.initialised_driver();
    for (int device : devices) {
        std::string bus_id;
        for (const DeviceInfo& info : driver.devices)
            if (info.ordinal == device) bus_id = info.pci_bus_id;
        bus_ids.push_back(bus_id);
    }
    const auto links = collect_nvml_peer_links(context.probes.nvml(), bus_ids);

    std::vector<PeerCopy> copies;
    for (std::size_t i = 0; i < devices.size(); ++i)
        for (std::size_t j = 0; j < devices.size(); ++j) {
            if (i == j) continue;
            PeerCopy copy = copy_between(devices[i], devices[j], buffers, i, j, sizes.runs);
            copy.link = links[i][j];
            copies.push_back(std::move(copy));
        }
    result.evidence("method", fmt::format("cudaMemcpyPeerAsync of {} per ordered pair (peer access enabled where "
                                          "cudaDeviceCanAccessPeer allows), "
                                          "verified on the receiving GPU; CUDA events, median of {} runs after 1 "
                                          "warm-up, both GPUs held alone; "
                                          "bytes counted once",
                                          format_bytes(words * 4), sizes.runs));
    if (context.sharing)
        for (const GpuSharing& sharing : context.sharing())
            for (PeerCopy& copy : copies)
                if (copy.source == sharing.device || copy.destination == sharing.device)
                    copy.shared_with += (copy.shared_with.empty() ? "" : ", ") +
                                        fmt::format("GPU {}: {}", sharing.device, describe_sharing(sharing));
    judge_p2p(copies, result);
}

}  // namespace

bool require_two_devices(const CheckContext& context, ResultBuilder& result) {
    if (context.devices.size() >= 2) return true;
    result.skip(context.devices.empty() ? std::string("needs 2 or more GPUs; none is selected")
                                        : fmt::format("needs 2 or more GPUs; only device {} is selected (or usable)",
                                                      context.devices.front()));
    return false;
}

void judge_p2p(const std::vector<PeerCopy>& copies, ResultBuilder& result) {
    const auto reverse_of = [&](const PeerCopy& copy) -> const PeerCopy* {
        for (const PeerCopy& other : copies)
            if (other.source == copy.destination && other.destination == copy.source) return &other;
        return nullptr;
    };
    std::vector<std::string> access;
    std::vector<double> rates;
    for (const PeerCopy& copy : copies) {
        const std::string pair = fmt::format("{} -> {}", copy.source, copy.destination);
        access.push_back(fmt::format("{} {}", pair, copy.can_access ? "yes" : "no"));
        result.evidence(fmt::format("link {}", pair), describe_link(copy.link));
        if (copy.link && copy.link->p2p_read_status)
            result.evidence(fmt::format("nvml_p2p_read_status {}", pair), std::to_string(*copy.link->p2p_read_status));
        const PeerCopy* reverse = reverse_of(copy);
        if (!copy.can_access) {
            if (auto why = access_expected(copy.link))
                result.add(Code::p2p_access_unavailable, fmt::format("GPU {} cannot access GPU {}'s memory "
                                                                     "(cudaDeviceCanAccessPeer is 0) although {}",
                                                                     copy.source, copy.destination, *why));
            else if (reverse != nullptr && reverse->can_access)
                result.add(Code::p2p_access_unavailable,
                           fmt::format("peer access works one way only: GPU {} can access GPU {}, but not the reverse",
                                       copy.destination, copy.source));
        }
        if (copy.wrong_words && *copy.wrong_words > 0)
            result.add(Code::p2p_copy_corrupted,
                       fmt::format("copy from GPU {} to GPU {} ({}): {} of {} words arrived different", copy.source,
                                   copy.destination, copy.can_access ? "peer access" : "staged through the host",
                                   *copy.wrong_words, copy.words));
        if (!copy.bandwidth_gbps) continue;
        rates.push_back(*copy.bandwidth_gbps);
        result.metric(peer_bandwidth, *copy.bandwidth_gbps,
                      {{"device", std::to_string(copy.source)}, {"peer_device", std::to_string(copy.destination)}});
        const std::optional<double> rate = copy.link ? link_rate_gbps(*copy.link) : std::nullopt;
        if (rate && *copy.bandwidth_gbps < low_fraction * *rate && !copy.shared_with.empty())
            result.evidence(fmt::format("rate_not_judged_{}_to_{}", copy.source, copy.destination),
                            fmt::format("{:.1f} GB/s while the GPUs were shared ({})", *copy.bandwidth_gbps,
                                        copy.shared_with));
        else if (rate && *copy.bandwidth_gbps < low_fraction * *rate)
            result.add(Code::p2p_bandwidth_low,
                       fmt::format("copy from GPU {} to GPU {} ran at {:.1f} GB/s, under a quarter of the {:.0f} GB/s "
                                   "its link ({}) carries{}",
                                   copy.source, copy.destination, *copy.bandwidth_gbps, *rate, describe_link(copy.link),
                                   copy.can_access ? "" : "; without peer access the copy goes through host memory"));
    }
    result.evidence("peer_access", fmt::format("{}", fmt::join(access, ", ")));
    if (rates.empty()) return;
    std::sort(rates.begin(), rates.end());
    result.metric(min_peer_bandwidth, rates.front());
    const std::size_t accessible = static_cast<std::size_t>(
        std::count_if(copies.begin(), copies.end(), [](const PeerCopy& c) { return c.can_access; }));
    std::vector<std::string> kinds;
    for (const PeerCopy& copy : copies) {
        const std::string kind = copy.link ? describe_link(copy.link) : "link unknown";
        if (std::find(kinds.begin(), kinds.end(), kind) == kinds.end()) kinds.push_back(kind);
    }
    const std::string range = rates.front() == rates.back() || rates.size() == 1
                                  ? fmt::format("{:.1f} GB/s", rates.front())
                                  : fmt::format("{:.1f}-{:.1f} GB/s", rates.front(), rates.back());
    const bool all_verified =
        std::all_of(copies.begin(), copies.end(), [](const PeerCopy& c) { return c.wrong_words == std::uint64_t{0}; });
    result.summary(
        fmt::format("{} pair(s): peer access {}, {}; {} over {}", copies.size(),
                    accessible == copies.size() ? "everywhere" : fmt::format("on {} of {}", accessible, copies.size()),
                    all_verified ? "every copy verified" : "copies compared", range, fmt::join(kinds, " / ")));
}

std::unique_ptr<Check> make_cuda_p2p_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "cuda.p2p",
                  .title = "GPU peer copies",
                  .description = "Peer access between every pair of GPUs, verified peer copies and their bandwidth vs "
                                 "the link (NVLink or PCIe, from NVML)",
                  .scope = Scope::multi_device,
                  .min_level = Level::standard,
                  .depends_on = {"cuda.devices"},
                  .raises = {Code::cuda_call_failed, Code::gpu_out_of_memory, Code::p2p_access_unavailable,
                             Code::p2p_copy_corrupted, Code::p2p_bandwidth_low},
                  .answers = "with 2+ GPUs, once over all of them: peer access between every pair, verified peer "
                             "copies and their "
                             "bandwidth against the link NVML reports (NVLink or PCIe)"},
        [](CheckContext& context, ResultBuilder& result) {
            if (!require_two_devices(context, result)) return;
            gpu::run_gpu_check(context, result, [&](int) { run_p2p(context, result); });
        });
}

const CheckRegistration cuda_p2p_registration{2000, make_cuda_p2p_check};

}  // namespace cudacheck
