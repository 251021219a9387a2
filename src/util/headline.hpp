// A finding's message and a passing check's message are headlines: one line a reader takes in at a
// glance in the table, at most max_headline characters. What does not fit (paths, lists, a
// compiler's error text) goes to the result's evidence, shown by `-v` and in the JSON report.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck::sys {

inline constexpr std::size_t max_headline = 120;

// Characters as a reader counts them, the unit of max_headline: UTF-8 code points ("…" is one).
[[nodiscard]] inline std::size_t characters(std::string_view text) {
    std::size_t count = 0;
    for (const char c : text) count += (static_cast<unsigned char>(c) & 0xC0U) != 0x80U ? 1 : 0;
    return count;
}

// `text` cut to at most `limit` characters at the last space before the limit, with "…" (3 bytes
// in UTF-8, counted as 3) in place of what was cut; `text` itself when it fits.
[[nodiscard]] inline std::string clip(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return std::string(text);
    constexpr std::string_view ellipsis = "…";
    if (limit <= ellipsis.size()) return std::string(ellipsis.substr(0, limit));
    std::size_t cut = limit - ellipsis.size();
    // Never cut inside a UTF-8 sequence: back up to the first byte of a character.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) --cut;
    if (const std::size_t space = text.rfind(' ', cut); space != std::string_view::npos && space > cut / 2) cut = space;
    while (cut > 0 && (text[cut - 1] == ' ' || text[cut - 1] == ',' || text[cut - 1] == ';' || text[cut - 1] == ':'))
        --cut;
    return std::string(text.substr(0, cut)) + std::string(ellipsis);
}

// The headline of an account that states a fact, then what follows from it ("nvcc 13.0 rejects
// gcc 16: host_config.h stops it with ..."): the whole text when it fits in `limit`, else the fact
// before the first ": " (when that says something: 24 characters or more), cut to `limit`.
[[nodiscard]] inline std::string lead(std::string_view text, std::size_t limit) {
    if (text.size() <= limit) return std::string(text);
    if (const std::size_t colon = text.find(": "); colon != std::string_view::npos && colon >= 24)
        text = text.substr(0, colon);
    return clip(text, limit);
}

// A path cut to at most `limit` characters by keeping its last components after "…/":
// "…/site-packages/nvidia/cudnn/lib/libcudnn.so.9"; the path itself when it fits.
[[nodiscard]] inline std::string clip_path(std::string_view path, std::size_t limit) {
    if (path.size() <= limit) return std::string(path);
    constexpr std::string_view lead = "…/";
    if (limit <= lead.size() + 1) return clip(path, limit);
    std::size_t start = path.size() - (limit - lead.size());
    if (const std::size_t slash = path.find('/', start); slash != std::string_view::npos && slash + 1 < path.size())
        start = slash + 1;
    while (start < path.size() && (static_cast<unsigned char>(path[start]) & 0xC0U) == 0x80U) ++start;
    return std::string(lead) + std::string(path.substr(start));
}

// As many of `items` as fit in `budget` characters, joined by ", ", then " and N more" for the
// rest: "PyTorch, JAX and 3 more". Every item when all fit; at least the count when none does.
[[nodiscard]] inline std::string first_items(const std::vector<std::string>& items, std::size_t budget) {
    std::string all;
    for (std::size_t i = 0; i < items.size(); ++i)
        all += (i == 0 ? "" : i + 1 == items.size() ? " and " : ", ") + items[i];
    if (all.size() <= budget) return all;
    std::string shown;
    for (std::size_t i = 0; i < items.size(); ++i) {
        const std::string more = " and " + std::to_string(items.size() - i - 1) + " more";
        const std::string next = shown + (i == 0 ? "" : ", ") + items[i];
        if (next.size() + more.size() > budget) {
            if (i == 0) return std::to_string(items.size()) + (items.size() == 1 ? " item" : " items");
            return shown + " and " + std::to_string(items.size() - i) + " more";
        }
        shown = next;
    }
    return shown;
}

}  // namespace cudacheck::sys
