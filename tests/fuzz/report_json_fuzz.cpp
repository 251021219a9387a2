// libFuzzer target for the report reader (report/report_json: parse_report), which diff, fleet,
// render and --expect apply to reports from anywhere: any input gives a report or a one-line error
// naming the file, never a crash, an escaped exception or a hang; and a report that reads is
// written back (to_json, as render does) as JSON that reads again into the same document.
#include "fuzz/fuzz_support.hpp"
#include "report/report_json.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace cudacheck;
    const Expected<Report> report = parse_report(fuzz::as_text(data, size), "input.json");
    if (!report) {
        fuzz::require_clean_error(report.error().message, "input.json");
        return 0;
    }
    const std::string written = to_json(*report).dump();
    const Expected<Report> again = parse_report(written, "written.json");
    fuzz::require(again.has_value(), "a report that reads does not read back once written",
                  again ? "" : again.error().message);
    fuzz::require(to_json(*again).dump() == written, "a report changes when written and read again");
    return 0;
}
