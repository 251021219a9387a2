#include "probes/nvml/timed_conditions.hpp"

#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <fmt/format.h>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>

namespace cudacheck {

namespace {

class ConditionWatch final : public SpanWatch {
public:
    ConditionWatch(SamplerSource source, int device, std::function<void(SectionConditions)> done)
        : source_(std::move(source)), done_(std::move(done)), opened_(std::chrono::steady_clock::now()) {
        conditions_.device = device;
        conditions_.start_us = wall_clock_us();
        thread_ = std::thread([this] { sample_until_stopped(); });
    }
    ConditionWatch(const ConditionWatch&) = delete;
    ConditionWatch& operator=(const ConditionWatch&) = delete;
    ~ConditionWatch() override {
        stop();
        thread_.join();
        try {
            done_(std::move(conditions_));
        } catch (...) {
            // Only a failed allocation gets here: the section then goes without its reading.
        }
    }
    void stop() override {
        {
            const std::lock_guard<std::mutex> lock(mutex_);
            stopped_ = true;
        }
        woken_.notify_one();
    }

private:
    void sample_until_stopped() {
        try {
            const std::shared_ptr<const NvmlClockSampler> sampler = source_();
            if (!sampler || !sampler->ok()) return;
            std::unique_lock<std::mutex> lock(mutex_);
            while (!woken_.wait_for(lock, condition_sample_period, [this] { return stopped_; })) {
                lock.unlock();
                take(*sampler);
                lock.lock();
            }
            lock.unlock();
            take(*sampler);  // as the section ends: the clock the work ran at
        } catch (...) {
            // NVML's answers are values, not exceptions; a failed allocation ends the reading here.
        }
    }
    void take(const NvmlClockSampler& sampler) {
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
        NvmlClockSample sample = sampler.sm_clock_and_temperature(seconds);
        if (sample.sm_clock_mhz || sample.temperature_c) conditions_.samples.push_back(sample);
    }

    SamplerSource source_;
    std::function<void(SectionConditions)> done_;
    std::chrono::steady_clock::time_point opened_;
    SectionConditions conditions_;  // the thread's until it is joined
    std::mutex mutex_;
    std::condition_variable woken_;
    bool stopped_ = false;
    std::thread thread_;  // last: started once everything it reads is built
};

double median_of(std::vector<double> values) {
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2.0;
}

using Field = std::optional<unsigned int> NvmlClockSample::*;

std::vector<double> values_of(const std::vector<NvmlClockSample>& samples, Field field) {
    std::vector<double> values;
    for (const NvmlClockSample& sample : samples)
        if (const auto value = sample.*field) values.push_back(*value);
    return values;
}

// "1980 MHz" (every reading the one value) or "1950 MHz median, 1470-1980 over 12 samples"; the
// number is the value or the median, rounded as the text rounds it ("{:.0f}" rounds half to even,
// as nearbyint does).
std::optional<Evidence> range_evidence(std::string key, const std::vector<double>& values, Unit unit) {
    if (values.empty()) return std::nullopt;
    const auto [low, high] = std::minmax_element(values.begin(), values.end());
    const std::string unit_text(to_string(unit));
    if (*low == *high)
        return Evidence{std::move(key), fmt::format("{:.0f} {}", *low, unit_text), std::nearbyint(*low), unit_text};
    const double median = median_of(values);
    return Evidence{std::move(key),
                    fmt::format("{:.0f} {} median, {:.0f}-{:.0f} over {} samples", median, unit_text, *low, *high,
                                values.size()),
                    std::nearbyint(median), unit_text};
}

constexpr std::size_t sections_listed = 12;

std::string section_medians(const std::vector<const SectionConditions*>& sections, Field field) {
    std::string text;
    for (const SectionConditions* section : sections) {
        const std::vector<double> values = values_of(section->samples, field);
        text += text.empty() ? "" : ", ";
        text += values.empty() ? std::string("?") : fmt::format("{:.0f}", median_of(values));
    }
    return text;
}

}  // namespace

std::unique_ptr<SpanWatch> watch_conditions(SamplerSource sampler, int device,
                                            std::function<void(SectionConditions)> done) {
    return std::make_unique<ConditionWatch>(std::move(sampler), device, std::move(done));
}

std::vector<Evidence> describe_conditions(std::vector<SectionConditions> sections, std::optional<int> check_device) {
    std::stable_sort(sections.begin(), sections.end(),
                     [](const SectionConditions& a, const SectionConditions& b) { return a.start_us < b.start_us; });
    std::map<int, std::vector<const SectionConditions*>> by_device;
    for (const SectionConditions& section : sections)
        if (!section.samples.empty()) by_device[section.device].push_back(&section);
    std::vector<Evidence> evidence;
    for (const auto& [device, of_device] : by_device) {
        const std::string prefix = check_device == device ? std::string() : fmt::format("gpu{}_", device);
        std::vector<NvmlClockSample> samples;
        for (const SectionConditions* section : of_device)
            samples.insert(samples.end(), section->samples.begin(), section->samples.end());
        if (auto clock =
                range_evidence(prefix + "sm_clock", values_of(samples, &NvmlClockSample::sm_clock_mhz), Unit::mhz))
            evidence.push_back(std::move(*clock));
        if (auto temperature = range_evidence(prefix + "temperature",
                                              values_of(samples, &NvmlClockSample::temperature_c), Unit::celsius))
            evidence.push_back(std::move(*temperature));
        if (of_device.size() < 2) continue;
        std::string text = fmt::format("{} timed sections, NVML read every {} ms and at each end", of_device.size(),
                                       condition_sample_period.count());
        if (of_device.size() <= sections_listed)
            text += fmt::format("; median of each, in timing order: SM clock {} MHz, temperature {} C",
                                section_medians(of_device, &NvmlClockSample::sm_clock_mhz),
                                section_medians(of_device, &NvmlClockSample::temperature_c));
        evidence.push_back(Evidence{prefix + "timed_sections", std::move(text)});
    }
    return evidence;
}

}  // namespace cudacheck
