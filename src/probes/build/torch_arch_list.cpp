#include "probes/build/torch_arch_list.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace cudacheck {

namespace {

// The quoted strings ('...' or "...") of `text`, in order.
std::vector<std::string> quoted_strings(std::string_view text) {
    std::vector<std::string> strings;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char quote = text[i];
        if (quote != '\'' && quote != '"') continue;
        const std::size_t end = text.find(quote, i + 1);
        if (end == std::string_view::npos) break;
        strings.emplace_back(text.substr(i + 1, end - i - 1));
        i = end;
    }
    return strings;
}

// The text between `opening` (e.g. "named_arches = collections.OrderedDict([") and the first
// `closing` after it.
std::optional<std::string_view> between(std::string_view source, std::string_view opening, std::string_view closing) {
    const std::size_t start = source.find(opening);
    if (start == std::string_view::npos) return std::nullopt;
    const std::size_t body = start + opening.size();
    const std::size_t end = source.find(closing, body);
    if (end == std::string_view::npos) return std::nullopt;
    return source.substr(body, end - body);
}

// Past this the expansion stops: a file whose names expand into longer names ("A" ->
// "AA", "AA" -> "AAAA", ...) would double the text once per name. torch's own tables expand a
// list to at most a few hundred characters.
constexpr std::size_t expanded_limit = std::size_t{64} * 1024;

// Whether every `from` could be replaced without the text growing past expanded_limit. Each
// search starts after the last replacement, so the loop ends whatever `to` holds.
bool replace_all(std::string& text, std::string_view from, std::string_view to) {
    if (from.empty()) return true;
    for (std::size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size()) {
        if (text.size() - from.size() + to.size() > expanded_limit) return false;
        text.replace(at, from.size(), to);
    }
    return true;
}

}  // namespace

std::optional<TorchArchTables> read_torch_arch_tables(std::string_view source) {
    const std::optional<std::string_view> named = between(source, "named_arches = collections.OrderedDict([", "])");
    const std::optional<std::string_view> supported = between(source, "supported_arches = [", "]");
    if (!named || !supported) return std::nullopt;
    TorchArchTables tables;
    const std::vector<std::string> pairs = quoted_strings(*named);
    if (pairs.empty() || pairs.size() % 2 != 0) return std::nullopt;
    for (std::size_t i = 0; i < pairs.size(); i += 2) tables.named.emplace_back(pairs[i], pairs[i + 1]);
    tables.supported = quoted_strings(*supported);
    if (tables.supported.empty()) return std::nullopt;
    return tables;
}

TorchArchList parse_torch_cuda_arch_list(std::string_view value, const TorchArchTables& tables) {
    TorchArchList list;
    std::string text(value.substr(0, expanded_limit));
    bool expanded = value.size() <= expanded_limit && replace_all(text, " ", ";");
    for (const auto& [name, architectures] : tables.named)
        expanded = expanded && replace_all(text, name, architectures);
    if (!expanded) {
        list.error =
            fmt::format("TORCH_CUDA_ARCH_LIST expands past {} KiB with the names of this torch's cpp_extension.py",
                        expanded_limit / 1024);
        return list;
    }
    for (std::size_t start = 0;;) {
        const std::size_t semicolon = text.find(';', start);
        list.entries.push_back(
            text.substr(start, semicolon == std::string::npos ? std::string::npos : semicolon - start));
        if (semicolon == std::string::npos) break;
        start = semicolon + 1;
    }
    std::set<std::string> flags;
    for (const std::string& entry : list.entries) {
        const bool ptx = entry.ends_with("+PTX");
        const std::string architecture = ptx ? entry.substr(0, entry.size() - 4) : entry;
        const std::size_t dot = architecture.find('.');
        if (std::find(tables.supported.begin(), tables.supported.end(), architecture) == tables.supported.end() ||
            dot == std::string::npos) {
            list.error = fmt::format("Unknown CUDA arch ({}) or GPU not supported", entry);
            list.gencode_flags.clear();
            return list;
        }
        const std::string number = architecture.substr(0, dot) + architecture.substr(dot + 1);
        flags.insert(fmt::format("-gencode=arch=compute_{},code=sm_{}", number, number));
        if (ptx) flags.insert(fmt::format("-gencode=arch=compute_{},code=compute_{}", number, number));
    }
    list.gencode_flags.assign(flags.begin(), flags.end());
    return list;
}

TorchDefaultArchList read_torch_default_arch_list(std::string_view source) {
    TorchDefaultArchList list;
    // Both quotings, as a reformatted file may write the literal either way.
    list.raises_without_gpu = source.find("arch_list[-1] += '+PTX'") != std::string_view::npos ||
                              source.find("arch_list[-1] += \"+PTX\"") != std::string_view::npos;
    list.accepts_native = source.find("_arch_list == \"native\"") != std::string_view::npos ||
                          source.find("_arch_list == 'native'") != std::string_view::npos;
    return list;
}

InstalledTorchArchTables read_installed_torch_arch_tables(const std::vector<std::string>& torch_files) {
    InstalledTorchArchTables installed;
    for (const std::string& file : torch_files) {
        const std::size_t at = file.rfind("/torch/version.py");
        if (at == std::string::npos) continue;
        const std::string cpp_extension = file.substr(0, at) + "/torch/utils/cpp_extension.py";
        if (const auto text = sys::read_file(cpp_extension, 4 << 20)) {
            installed.tables = read_torch_arch_tables(*text);
            installed.default_list = read_torch_default_arch_list(*text);
            if (!installed.tables)
                installed.problem =
                    cpp_extension + " has no named_arches/supported_arches in the form PyTorch writes them";
        } else {
            installed.problem = cpp_extension + " cannot be read";
        }
    }
    if (!installed.tables && installed.problem.empty()) installed.problem = "torch/utils/cpp_extension.py not found";
    return installed;
}

}  // namespace cudacheck
