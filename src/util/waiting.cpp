#include "util/waiting.hpp"

#include <utility>

namespace cudacheck {
namespace {

thread_local std::function<void(bool)> reporter;

}  // namespace

WaitReporting::WaitReporting(std::function<void(bool)> report) { reporter = std::move(report); }

WaitReporting::~WaitReporting() { reporter = nullptr; }

WaitScope::WaitScope() {
    if (reporter) reporter(true);
}

WaitScope::~WaitScope() {
    if (reporter) reporter(false);
}

}  // namespace cudacheck
