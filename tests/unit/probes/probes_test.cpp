// Probes (probes/probes.cpp): a GPU's checks wait for that GPU's context only, and never forever.
#include "probes/probes.hpp"
#include "support/function_checks.hpp"
#include "util/environment.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>
#include <vector>

namespace cudacheck {
namespace {

using test::two_fake_devices;

// Probes::prefetch_driver creates the primary contexts one after another; a GPU's checks wait for
// their own GPU's context (Probes::wait_for_context), not for every GPU's.
TEST(Probes, a_gpus_checks_wait_for_their_own_context_only) {
    std::promise<void> release_second;
    const std::shared_future<void> second_released = release_second.get_future().share();
    std::vector<int> order;
    ProbeSettings settings;
    settings.collect_driver = two_fake_devices;
    settings.create_context = [&](int ordinal) {
        order.push_back(ordinal);
        if (ordinal == 1) (void)second_released.wait_for(std::chrono::seconds(10));
    };
    const Environment environment;
    Probes probes(environment, settings);
    probes.prefetch_driver({});
    auto first = std::async(std::launch::async, [&] { probes.wait_for_context(0); });
    auto second = std::async(std::launch::async, [&] { probes.wait_for_context(1); });
    EXPECT_EQ(first.wait_for(std::chrono::seconds(5)), std::future_status::ready) << "GPU 0 waited for GPU 1's context";
    EXPECT_EQ(second.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
        << "GPU 1 went on before its context existed";
    release_second.set_value();
    EXPECT_EQ(second.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    EXPECT_EQ(order, (std::vector<int>{0, 1}));
}

// However context creation ends (here it throws on the first GPU), no check waits for ever.
TEST(Probes, waiting_for_a_context_ends_when_creating_them_fails) {
    ProbeSettings settings;
    settings.collect_driver = two_fake_devices;
    settings.create_context = [](int) { throw std::runtime_error("the driver fell over"); };
    const Environment environment;
    Probes probes(environment, settings);
    probes.prefetch_driver({});
    auto waits = std::async(std::launch::async, [&] {
        probes.wait_for_context(0);
        probes.wait_for_context(1);
    });
    EXPECT_EQ(waits.wait_for(std::chrono::seconds(5)), std::future_status::ready);
}

// Probes whose cuInit (the driver facts, two fake devices) returns when release() is called, or
// after `limit`; prefetch_driver() has started it.
class HeldCuInit {
public:
    explicit HeldCuInit(std::chrono::seconds limit) {
        settings_.collect_driver = [this, limit](bool initialise) {
            (void)released_.wait_for(limit);
            return two_fake_devices(initialise);
        };
        probes_.emplace(environment_, settings_);
        probes_->prefetch_driver({});
    }
    Probes& probes() { return *probes_; }
    void release() { release_.set_value(); }

private:
    std::promise<void> release_;
    std::shared_future<void> released_ = release_.get_future().share();
    ProbeSettings settings_;
    const Environment environment_;
    std::optional<Probes> probes_;  // last: destroyed (joining the driver's prefetch) first
};

// The CUDA libraries open once cuInit has returned, whoever asks for one first (opened beside
// cuInit, their dlopens slowed it: probes/driver_probe.cpp), and no more than 500 ms after a
// cuInit that has not returned.
TEST(Probes, a_library_opens_once_cuinit_has_returned) {
    HeldCuInit init(std::chrono::seconds(10));
    auto opened = std::async(std::launch::async, [&] { (void)init.probes().library(cuda_library::cublas); });
    EXPECT_EQ(opened.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout)
        << "cuBLAS opened while cuInit ran";
    init.release();
    EXPECT_EQ(opened.wait_for(std::chrono::seconds(10)), std::future_status::ready);
}

TEST(Probes, a_library_waits_no_more_than_half_a_second_for_cuinit) {
    HeldCuInit init(std::chrono::seconds(30));
    auto opened = std::async(std::launch::async, [&] { (void)init.probes().library(cuda_library::cufft); });
    EXPECT_EQ(opened.wait_for(std::chrono::seconds(10)), std::future_status::ready)
        << "a cuInit that hangs held up cuFFT";
    init.release();  // before Probes joins the driver's prefetch
}

TEST(Probes, waiting_for_a_context_returns_at_once_without_a_prefetch) {
    const Environment environment;
    Probes probes(environment, {});
    auto wait = std::async(std::launch::async, [&] { probes.wait_for_context(0); });
    EXPECT_EQ(wait.wait_for(std::chrono::seconds(5)), std::future_status::ready);
}

}  // namespace
}  // namespace cudacheck
