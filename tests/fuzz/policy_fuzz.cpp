// libFuzzer target for the `--expect` policy reader (report/policy: parse_policy): any input gives a
// policy or a one-line error naming the file, never a crash, an escaped exception or a hang; and a
// policy that reads is applied to the example reports (and an empty one) as --expect applies it:
// one expect.* result per expectation, a failure carrying its code and a one-line message, and the
// report still written as JSON.
#include "fuzz/fuzz_support.hpp"
#include "report/policy.hpp"
#include "report/report_json.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace {

const std::vector<cudacheck::Report>& reports() {
    static const std::vector<cudacheck::Report> loaded = [] {
        std::vector<cudacheck::Report> result(1);
        for (const char* path : {"/docs/examples/h200/cudacheck.json", "/docs/examples/no-driver/cudacheck.json"}) {
            auto report = cudacheck::read_report_file(CUDACHECK_SOURCE_DIR + std::string(path));
            cudacheck::fuzz::require(report.has_value(), "the example report does not read",
                                     report ? "" : report.error().message);
            result.push_back(std::move(*report));
        }
        return result;
    }();
    return loaded;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    const Expected<Policy> policy = parse_policy(fuzz::as_text(data, size), "input.json");
    if (!policy) {
        fuzz::require_clean_error(policy.error().message, "input.json");
        return 0;
    }
    for (const Report& original : reports()) {
        Report report = original;
        apply_policy(*policy, report);
        fuzz::require(report.checks.size() >= original.checks.size(), "applying a policy lost results");
        for (std::size_t i = original.checks.size(); i < report.checks.size(); ++i) {
            const CheckResult& result = report.checks[i];
            fuzz::require(result.check_id.rfind("expect.", 0) == 0, "a policy result outside expect.*",
                          result.check_id);
            fuzz::require(result.message.find('\n') == std::string::npos, "a policy result's message is not one line",
                          result.message);
            if (result.status == Status::fail)
                fuzz::require(!result.code.empty(), "a failed expectation without a code", result.message);
        }
        (void)to_json(report).dump();
    }
    return 0;
}
