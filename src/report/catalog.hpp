// The catalogue of findings: every problem cudacheck can report has a stable code, a severity, a
// one-sentence cause (with a longer detail where it needs one) and a remediation. Codes are append-only: never renumber
// or reuse one, because scripts and support tickets refer to them. The codes and their entries are one list,
// catalog_entries.def. docs/errors.md is generated from it (`cudacheck explain --markdown`) and a
// unit test fails when the two differ.
//
// Numbering: 1xx host and environment, 2xx driver, 3xx toolkit, 4xx CUDA pairing and devices,
// 5xx GPU work and CUDA libraries, 6xx where CUDA libraries resolve, 7xx expectations of a policy
// (--expect), 8xx `cudacheck inspect` input, 9xx cudacheck itself.
#pragma once

#include "report/result.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

// One enumerator per catalogue entry, expanded from the list that also makes the entries.
enum class Code : int {
#define CUDACHECK_CATALOG_ENTRY(enumerator, number, ...) enumerator = number,
#include "report/catalog_entries.def"
#undef CUDACHECK_CATALOG_ENTRY
};

struct CatalogEntry {
    Code code;
    std::string_view slug;  // stable kebab-case name, accepted by `explain` like the code
    Status severity;  // the usual status; a check may lower or raise it with a reason
    Remedy remedy;  // the step the finding asks for (report/result.hpp); a check may name another
    std::string_view title;  // a few words
    std::string_view cause;  // one sentence of at most 160 characters: why this happens
    std::string_view detail;  // the longer explanation (Markdown), may be empty: docs/errors.md, `explain`
    std::string_view remediation;  // generic fix; checks give a specific one with the values found
    std::string_view raised_by;  // check ids, comma separated, or who else raises it (catalog_entries.def)
};

// "CC201" for Code::kernel_module_not_loaded.
[[nodiscard]] std::string code_string(Code code);
// Throws std::logic_error for a number that is no enumerator (a cast from an int gone wrong).
[[nodiscard]] const CatalogEntry& catalog_entry(Code code);
[[nodiscard]] std::span<const CatalogEntry> catalog();
// Accepts "CC201", "cc201", "201" or the slug; empty when nothing matches.
[[nodiscard]] const CatalogEntry* find_catalog_entry(std::string_view code_or_slug);
// Up to `count` codes (with their slugs) closest to an unknown code or slug, e.g. "CC210 (libcuda-not-found)".
[[nodiscard]] std::string closest_catalog_codes(std::string_view code_or_slug, std::size_t count = 3);
// The docs anchor of a code in docs/errors.md, e.g. "docs/errors.md#cc201"; the string form takes
// a code as a report spells it ("CC201"), known to this build or not.
[[nodiscard]] std::string docs_anchor(Code code);
[[nodiscard]] std::string docs_anchor(std::string_view code);

// A finding built from the catalog: status from the entry unless given, remediation required
// (specific to what was found; the catalog's generic text is the fallback), the entry's remedy.
[[nodiscard]] Finding make_finding(Code code, std::string message, std::string remediation = {},
                                   std::optional<Status> status = std::nullopt);

}  // namespace cudacheck
