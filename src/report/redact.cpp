#include "report/redact.hpp"

#include "util/system.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <pwd.h>
#include <random>
#include <unistd.h>

namespace cudacheck {

namespace {

// Letters, digits, '_' and '-' continue a name: "vm" must not match inside "nvml", nor "alice"
// inside "alice2" or "/home/al" inside "/home/alice".
bool continues_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; }

// Replaces each whole-word occurrence of `needle` in `text`; returns how many.
int replace_words(std::string& text, std::string_view needle, std::string_view replacement) {
    if (needle.empty() || text.size() < needle.size()) return 0;
    int count = 0;
    std::string result;
    std::size_t from = 0;
    for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
        const std::size_t end = at + needle.size();
        // A needle that is itself a path ("/home/alice") starts at a separator already.
        const bool left_free = at == 0 || !continues_word(text[at - 1]) || !continues_word(needle.front());
        const bool right_free = end == text.size() || !continues_word(text[end]) || !continues_word(needle.back());
        if (!left_free || !right_free || at < from) continue;
        result.append(text, from, at - from).append(replacement);
        from = end;
        ++count;
    }
    if (count == 0) return 0;
    result.append(text, from);
    text = std::move(result);
    return count;
}

// Every string in the report, keys of evidence included.
template <typename Visit>
void for_each_text(Report& report, Visit&& visit) {
    for (std::string& argument : report.argv) visit(argument);
    HostInfo& host = report.host;
    for (std::string* text : {&host.hostname, &host.node_name, &host.os_pretty_name, &host.kernel_release,
                              &host.architecture, &host.libc_version, &host.cpu_model, &host.container, &host.wsl})
        visit(*text);
    VersionInfo& versions = report.versions;
    for (std::string* text : {&versions.driver, &versions.driver_cuda, &versions.runtime, &versions.nvcc}) visit(*text);
    for (DeviceInfo& device : report.devices)
        for (std::string* text : {&device.name, &device.uuid, &device.pci_bus_id, &device.architecture,
                                  &device.compute_mode, &device.source})
            visit(*text);
    for (CheckResult& result : report.checks) {
        for (std::string* text : {&result.message, &result.remediation, &result.skip_reason}) visit(*text);
        for (Finding& finding : result.findings) {
            for (std::string* text : {&finding.message, &finding.remediation, &finding.gpu}) visit(*text);
            if (finding.subject) visit(*finding.subject);
        }
        for (Evidence& evidence : result.evidence)
            for (std::string* text : {&evidence.key, &evidence.value}) visit(*text);
        for (Metric& metric : result.metrics) {
            visit(metric.name);
            // A label's value is part of the name: both are redacted alike.
            for (auto& label : metric.labels) visit(label.second);
        }
    }
    // Virtual environments live in home directories (~/venvs/x, /home/alice/.local/...).
    if (report.frameworks)
        for (PythonEnvironmentInfo& environment : *report.frameworks) {
            for (std::string* text : {&environment.prefix, &environment.interpreter}) visit(*text);
            for (std::string& text : environment.found_by) visit(text);
            for (PythonPathEntryInfo& entry : environment.sys_path) visit(entry.path);
            for (PythonImportInfo& imported : environment.imports) visit(imported.file);
            for (FrameworkInfo& framework : environment.frameworks) {
                visit(framework.subject);
                visit(framework.imported_from);
                for (std::string& file : framework.files) visit(file);
                for (FrameworkLibraryInfo& library : framework.libraries)
                    for (std::string* text : {&library.path, &library.rule}) visit(*text);
                for (FrameworkGpuInfo& gpu : framework.gpus) visit(gpu.how);
            }
        }
    // Library copies in wheels under home directories, and LD_LIBRARY_PATH entries in the rules.
    if (report.libraries) {
        for (LibraryInfo& library : report.libraries->found) {
            for (LibraryResolutionInfo& resolution : library.resolved)
                for (std::string* text : {&resolution.path, &resolution.real_path, &resolution.rule}) visit(*text);
            for (LibraryCopyInfo& copy : library.copies)
                for (std::string* text : {&copy.path, &copy.real_path}) visit(*text);
        }
        visit(report.libraries->ld_so_cache);
        for (std::string& path : report.libraries->loaded_by_cudacheck) visit(path);
    }
}

// Flags like FOO_KEY=1 are not secrets, and replacing every "1" would ruin the report.
bool is_flag_value(std::string_view value) {
    const std::string lower = sys::to_lower(value);
    return value.size() < 2 || lower == "true" || lower == "false" || lower == "yes" || lower == "no" ||
           lower == "on" || lower == "off";
}

void add_unique(std::vector<std::string>& list, std::string value) {
    if (!value.empty() && std::find(list.begin(), list.end(), value) == list.end()) list.push_back(std::move(value));
}

class Redactor {
public:
    explicit Redactor(const RedactionTargets& targets) : targets_(targets) {}

    void apply(std::string& text) {
        for (const auto& [name, value] : targets_.secret_variables)
            if (replace_words(text, value, fmt::format("[redacted:{}]", name)) > 0) note("environment_values", name);
        if (text.find("GPU-") != std::string::npos || text.find("MIG-") != std::string::npos) replace_uuids(text);
        if (text.find("Serial Number") != std::string::npos) replace_named_serials(text);
        // Longest first: the home directory usually contains the user name.
        for (const std::string& home : targets_.home_directories)
            if (replace_words(text, home, "$HOME") > 0) note("home_directory");
        if (!targets_.hostname.empty()) {
            const std::string short_name = targets_.hostname.substr(0, targets_.hostname.find('.'));
            for (const std::string& name : {targets_.hostname, short_name})
                if (replace_words(text, name, "[redacted-host]") > 0) note("hostname");
        }
        if (!targets_.node_name.empty() && replace_words(text, targets_.node_name, "[redacted-node]") > 0)
            note("hostname");
        for (const std::string& user : targets_.user_names)
            if (replace_words(text, user, "[redacted-user]") > 0) note("user_name");
    }

    // Serial numbers have no recognisable shape: they are replaced where a key names them.
    void apply_serial(Evidence& evidence) {
        if (sys::to_lower(evidence.key).find("serial") == std::string::npos || evidence.value.empty()) return;
        evidence.value = fmt::format("[redacted-serial-{:012x}]", hash(evidence.value));
        note("serial_numbers");
    }

    [[nodiscard]] Redaction record() const {
        Redaction redaction;
        for (std::string_view kind :
             {"hostname", "user_name", "home_directory", "device_ids", "serial_numbers", "environment_values"})
            if (std::find(kinds_.begin(), kinds_.end(), kind) != kinds_.end()) redaction.kinds.emplace_back(kind);
        redaction.environment_variables = variables_;
        std::sort(redaction.environment_variables.begin(), redaction.environment_variables.end());
        redaction.replacements = replacements_;
        return redaction;
    }

private:
    void note(std::string_view kind, const std::string& variable = {}) {
        ++replacements_;
        add_unique(kinds_, std::string(kind));
        add_unique(variables_, variable);
    }

    [[nodiscard]] std::uint64_t hash(std::string_view text) const {
        return siphash24(sys::to_lower(text), targets_.salt) & 0xffffffffffffULL;
    }

    // A serial number in free text where words name it: the driver's kernel-log line "NVRM: GPU Board
    // Serial Number: 1650123456789" (kept as driver.kernel_log evidence) and nvidia-smi -q's
    // "Serial Number : …"; the run of letters and digits after the colon.
    void replace_named_serials(std::string& text) {
        constexpr std::string_view words = "Serial Number";
        for (std::size_t at = text.find(words); at != std::string::npos; at = text.find(words, at)) {
            std::size_t start = at + words.size();
            while (start < text.size() && text[start] == ' ') ++start;
            if (start >= text.size() || text[start] != ':') {
                at = start;
                continue;
            }
            ++start;
            while (start < text.size() && text[start] == ' ') ++start;
            std::size_t end = start;
            while (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end])) != 0) ++end;
            if (end == start) {
                at = start;
                continue;
            }
            const std::string replacement =
                fmt::format("[redacted-serial-{:012x}]", hash(std::string_view(text).substr(start, end - start)));
            text.replace(start, end - start, replacement);
            note("serial_numbers");
            at = start + replacement.size();
        }
    }

    // Each "GPU-" or "MIG-" UUID (8-4-4-4-12 hex digits), left to right, not overlapping: what the
    // pattern (GPU|MIG)-[0-9a-fA-F]{8}-...-[0-9a-fA-F]{12} found, scanned by hand (std::regex
    // recursed over long text).
    void replace_uuids(std::string& text) {
        std::string result;
        std::size_t from = 0;
        for (std::size_t at = 0; at + uuid_length <= text.size();) {
            if (!is_uuid_at(text, at)) {
                ++at;
                continue;
            }
            result.append(text, from, at - from);
            const std::string uuid = text.substr(at, uuid_length);
            // The prefix stays: a MIG instance remains recognisable as one.
            result += fmt::format("{}-redacted-{:012x}", uuid.substr(0, 3), hash(uuid));
            at += uuid_length;
            from = at;
            note("device_ids");
        }
        if (from == 0) return;
        result.append(text, from, std::string::npos);
        text = std::move(result);
    }

    static constexpr std::size_t uuid_length = 40;  // "GPU-" and 8-4-4-4-12 hex digits
    static bool is_uuid_at(std::string_view text, std::size_t at) {
        const std::string_view prefix = text.substr(at, 4);
        if (prefix != "GPU-" && prefix != "MIG-") return false;
        std::size_t next = at + 4;
        for (const std::size_t digits : {8, 4, 4, 4, 12}) {
            if (digits != 8) {
                if (text[next] != '-') return false;
                ++next;
            }
            for (std::size_t i = 0; i < digits; ++i, ++next)
                if (!((text[next] >= '0' && text[next] <= '9') || (text[next] >= 'a' && text[next] <= 'f') ||
                      (text[next] >= 'A' && text[next] <= 'F')))
                    return false;
        }
        return true;
    }

    const RedactionTargets& targets_;
    std::vector<std::string> kinds_;
    std::vector<std::string> variables_;
    int replacements_ = 0;
};

std::uint64_t rotate(std::uint64_t value, int bits) { return (value << bits) | (value >> (64 - bits)); }

}  // namespace

bool looks_secret(std::string_view variable_name) {
    const std::string name = sys::to_lower(variable_name);
    for (std::string_view word : {"token", "key", "password", "passwd", "secret", "credential"})
        if (name.find(word) != std::string::npos) return true;
    return false;
}

RedactionTargets redaction_targets(const Report& report, const Environment& environment) {
    RedactionTargets targets;
    targets.hostname = report.host.hostname;
    targets.node_name = report.host.node_name;
    for (const char* variable : {"USER", "LOGNAME"})
        add_unique(targets.user_names, environment.get(variable).value_or(""));
    add_unique(targets.home_directories, environment.get("HOME").value_or(""));
    if (const passwd* entry = ::getpwuid(::getuid()); entry != nullptr) {
        add_unique(targets.user_names, entry->pw_name != nullptr ? entry->pw_name : "");
        add_unique(targets.home_directories, entry->pw_dir != nullptr ? entry->pw_dir : "");
    }
    // "/" as a home directory (daemons, some containers) would turn every path into $HOME.
    std::erase_if(targets.home_directories, [](const std::string& home) { return sys::trim(home).size() < 2; });
    for (std::string& home : targets.home_directories)
        while (home.size() > 1 && home.back() == '/') home.pop_back();
    std::sort(targets.home_directories.begin(), targets.home_directories.end(),
              [](const auto& a, const auto& b) { return a.size() > b.size(); });
    for (const auto& [name, value] : environment.all())
        if (looks_secret(name) && !is_flag_value(value)) targets.secret_variables.emplace_back(name, value);
    // Longest first, so a value containing another is replaced whole.
    std::sort(targets.secret_variables.begin(), targets.secret_variables.end(),
              [](const auto& a, const auto& b) { return a.second.size() > b.second.size(); });
    std::random_device random;
    for (std::uint64_t& word : targets.salt) word = (static_cast<std::uint64_t>(random()) << 32) ^ random();
    return targets;
}

void redact(Report& report, const RedactionTargets& targets) {
    Redactor redactor(targets);
    for (CheckResult& result : report.checks)
        for (Evidence& evidence : result.evidence) redactor.apply_serial(evidence);
    for_each_text(report, [&](std::string& text) { redactor.apply(text); });
    report.redaction = redactor.record();
}

std::uint64_t siphash24(std::string_view message, const std::array<std::uint64_t, 2>& key) {
    std::uint64_t v0 = 0x736f6d6570736575ULL ^ key[0];
    std::uint64_t v1 = 0x646f72616e646f6dULL ^ key[1];
    std::uint64_t v2 = 0x6c7967656e657261ULL ^ key[0];
    std::uint64_t v3 = 0x7465646279746573ULL ^ key[1];
    const auto round = [&] {
        v0 += v1, v1 = rotate(v1, 13), v1 ^= v0, v0 = rotate(v0, 32);
        v2 += v3, v3 = rotate(v3, 16), v3 ^= v2;
        v0 += v3, v3 = rotate(v3, 21), v3 ^= v0;
        v2 += v1, v1 = rotate(v1, 17), v1 ^= v2, v2 = rotate(v2, 32);
    };
    const auto byte = [&](std::size_t index) {
        return static_cast<std::uint64_t>(static_cast<unsigned char>(message[index]));
    };
    const std::size_t whole = message.size() / 8 * 8;
    for (std::size_t block = 0; block < whole; block += 8) {
        std::uint64_t word = 0;
        for (int i = 0; i < 8; ++i) word |= byte(block + static_cast<std::size_t>(i)) << (8 * i);
        v3 ^= word;
        round(), round();
        v0 ^= word;
    }
    std::uint64_t last = static_cast<std::uint64_t>(message.size() & 0xff) << 56;
    for (std::size_t i = whole; i < message.size(); ++i) last |= byte(i) << (8 * (i - whole));
    v3 ^= last;
    round(), round();
    v0 ^= last;
    v2 ^= 0xff;
    round(), round(), round(), round();
    return v0 ^ v1 ^ v2 ^ v3;
}

}  // namespace cudacheck
