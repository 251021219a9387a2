#include "report/catalog.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <stdexcept>

namespace cudacheck {

namespace {

constexpr std::array entries{
#define CUDACHECK_CATALOG_ENTRY(enumerator, number, slug, severity, remedy, title, cause, detail, remediation, \
                                raised_by)                                                                     \
    CatalogEntry{Code::enumerator, slug,        Status::severity, Remedy::remedy, title, cause,                \
                 detail,           remediation, raised_by},
#include "report/catalog_entries.def"
#undef CUDACHECK_CATALOG_ENTRY
};

// The enum would accept two enumerators with one number, and explain would show one of them only.
constexpr bool codes_and_slugs_unique() {
    for (std::size_t i = 0; i < entries.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (entries[i].code == entries[j].code || entries[i].slug == entries[j].slug) return false;
    return true;
}
static_assert(codes_and_slugs_unique(), "catalog_entries.def: a code number or slug is used twice");

}  // namespace

std::string code_string(Code code) { return fmt::format("CC{:03d}", static_cast<int>(code)); }

std::span<const CatalogEntry> catalog() { return entries; }

const CatalogEntry& catalog_entry(Code code) {
    for (const CatalogEntry& entry : entries)
        if (entry.code == code) return entry;
    // Every enumerator has an entry (both come from one list): only a cast from an int gets here.
    throw std::logic_error(fmt::format("{} is not in the finding catalogue", code_string(code)));
}

const CatalogEntry* find_catalog_entry(std::string_view code_or_slug) {
    const std::string wanted = sys::to_lower(sys::trim(code_or_slug));
    for (const CatalogEntry& entry : entries) {
        const std::string code = sys::to_lower(code_string(entry.code));
        if (wanted == code || wanted == code.substr(2) || wanted == entry.slug) return &entry;
    }
    return nullptr;
}

std::string closest_catalog_codes(std::string_view code_or_slug, std::size_t count) {
    const std::string wanted = sys::to_lower(sys::trim(code_or_slug));
    std::vector<std::pair<std::size_t, const CatalogEntry*>> scored;
    for (const CatalogEntry& entry : entries) {
        const std::string code = sys::to_lower(code_string(entry.code));
        scored.emplace_back(std::min({sys::edit_distance(wanted, code), sys::edit_distance(wanted, code.substr(2)),
                                      sys::edit_distance(wanted, entry.slug)}),
                            &entry);
    }
    std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::string text;
    for (std::size_t i = 0; i < std::min(count, scored.size()); ++i)
        text +=
            fmt::format("{}{} ({})", i > 0 ? ", " : "", code_string(scored[i].second->code), scored[i].second->slug);
    return text;
}

std::string docs_anchor(std::string_view code) { return "docs/errors.md#" + sys::to_lower(code); }

std::string docs_anchor(Code code) { return docs_anchor(code_string(code)); }

Finding make_finding(Code code, std::string message, std::string remediation, std::optional<Status> status) {
    const CatalogEntry& entry = catalog_entry(code);
    Finding finding;
    finding.status = status.value_or(entry.severity);
    finding.code = code_string(code);
    finding.message = std::move(message);
    finding.remediation = remediation.empty() ? std::string(entry.remediation) : std::move(remediation);
    finding.remedy = entry.remedy;
    return finding;
}

}  // namespace cudacheck
