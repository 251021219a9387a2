#include "probes/kernel_log.hpp"

#include "probes/process_limits.hpp"
#include "util/process.hpp"
#include "util/system.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace cudacheck {
namespace {

// A kmsg record's text is at most about 1 KiB (LOG_LINE_MAX); a line of a file or the journal longer
// than this is cut here, so that a hostile or broken log costs no more than its size.
constexpr std::size_t longest_line = 4096;

bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<std::uint64_t> parse_number(std::string_view digits, int base = 10) {
    std::uint64_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, base);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty()) return std::nullopt;
    return value;
}

// The leading run of digits of `text` as a number, and what follows it.
std::optional<std::uint64_t> leading_number(std::string_view& text, int base = 10) {
    std::size_t length = 0;
    while (length < text.size() && length < 18 && (base == 16 ? is_hex(text[length]) : is_digit(text[length])))
        ++length;
    const std::optional<std::uint64_t> value = parse_number(text.substr(0, length), base);
    if (value) text.remove_prefix(length);
    return value;
}

std::string_view trim_left(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    return text;
}

// "123.456789" (dmesg's and the journal's stamp, padded with spaces) as seconds; none for any other
// text (dmesg -T's "Tue Dec  1 10:00:00 2026").
std::optional<double> parse_stamp(std::string_view text) {
    text = sys::trim(text);
    const std::size_t dot = text.find('.');
    if (dot == std::string_view::npos) return std::nullopt;
    const std::optional<std::uint64_t> whole = parse_number(text.substr(0, dot));
    const std::string_view fraction = text.substr(dot + 1);
    const std::optional<std::uint64_t> part = fraction.size() <= 9 ? parse_number(fraction) : std::nullopt;
    if (!whole || !part) return std::nullopt;
    double scale = 1;
    for (std::size_t i = 0; i < fraction.size(); ++i) scale *= 10;
    return static_cast<double>(*whole) + static_cast<double>(*part) / scale;
}

// The stamp of the last "[…]" in the text before the driver's: dmesg's "[  123.456]", "<4>[ 12.3]",
// the journal's "[  123.456] host kernel:", a syslog file's "Dec  3 10:00:00 host kernel: [ 123.4]".
std::optional<double> stamp_before(std::string_view prefix) {
    const std::size_t close = prefix.rfind(']');
    if (close == std::string_view::npos) return std::nullopt;
    const std::size_t open = prefix.rfind('[', close);
    if (open == std::string_view::npos) return std::nullopt;
    return parse_stamp(prefix.substr(open + 1, close - open - 1));
}

// A /dev/kmsg record, "prio,seq,usec,flags[,…];text" (Documentation/ABI/testing/dev-kmsg).
struct KmsgRecord {
    std::uint64_t sequence = 0;
    std::uint64_t microseconds = 0;
    std::string_view text;
};
std::optional<KmsgRecord> kmsg_record(std::string_view line) {
    const std::size_t semicolon = line.find(';');
    if (semicolon > 64) return std::nullopt;  // none (npos) or too far for a record's header
    std::string_view header = line.substr(0, semicolon);
    KmsgRecord record;
    const std::optional<std::uint64_t> priority = leading_number(header);
    if (!priority || header.empty() || header.front() != ',') return std::nullopt;
    header.remove_prefix(1);
    const std::optional<std::uint64_t> sequence = leading_number(header);
    if (!sequence || header.empty() || header.front() != ',') return std::nullopt;
    header.remove_prefix(1);
    const std::optional<std::uint64_t> microseconds = leading_number(header);
    if (!microseconds || header.empty() || header.front() != ',') return std::nullopt;
    record.sequence = *sequence;
    record.microseconds = *microseconds;
    record.text = line.substr(semicolon + 1);
    return record;
}

// /dev/kmsg writes a byte it would not print as \xNN (a newline inside one message as \x0a, a
// backslash as \x5c); the newline splits one message into its lines.
std::string unescape_kmsg(std::string_view text) {
    std::string result;
    result.reserve(text.size());
    for (std::size_t at = 0; at < text.size(); ++at) {
        if (text[at] == '\\' && at + 3 < text.size() && text[at + 1] == 'x' && is_hex(text[at + 2]) &&
            is_hex(text[at + 3])) {
            result += static_cast<char>(*parse_number(text.substr(at + 2, 2), 16));
            at += 3;
            continue;
        }
        result += text[at];
    }
    return result;
}

// The first PCI address in `text` ("0000:3b:00.0", "0000:3b:00", "00000000:3B:00.0"), canonical.
std::string find_pci_address(std::string_view text) {
    for (std::size_t colon = text.find(':'); colon != std::string_view::npos; colon = text.find(':', colon + 1)) {
        std::size_t start = colon;
        while (start > 0 && colon - start < 8 && is_hex(text[start - 1])) --start;
        if (colon - start < 4 || (start > 0 && std::isalnum(static_cast<unsigned char>(text[start - 1])) != 0))
            continue;
        std::string_view candidate = text.substr(start, colon - start + 6);
        if (colon + 6 < text.size() && text[colon + 6] == '.' && colon + 7 < text.size() && is_hex(text[colon + 7]))
            candidate = text.substr(start, colon - start + 8);
        std::string canonical = canonical_pci_address(candidate);
        if (!canonical.empty()) return canonical;
    }
    return {};
}

// "name=oob, channel 0x…": the value up to the first ',' (a process name may hold ':' and brackets:
// "nvc:[driver]"), and what follows it.
std::string_view take_field(std::string_view& rest) {
    const std::size_t end = rest.find(',');
    const std::string_view value = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view{} : trim_left(rest.substr(end + 1));
    return value;
}

// The driver's text as evidence: control bytes escaped (sys::printable), copied as it is in the
// usual case of plain ASCII (an Xid storm is thousands of lines: docs/performance.md).
std::string printable_text(std::string_view text) {
    const bool plain = std::all_of(text.begin(), text.end(), [](char c) {
        const auto byte = static_cast<unsigned char>(c);
        return byte >= 0x20 && byte < 0x7f;
    });
    return plain ? std::string(text) : sys::printable(text);
}
std::string printable_line(std::string_view text) { return printable_text(sys::trim(text)); }

// "(PCI:0000:3b:00): 79, rest" or "(0000:3b:00): 79, rest": the address and number; `rest` after them.
bool parse_address_and_number(std::string_view& text, std::string& pci, int& number) {
    if (text.empty() || text.front() != '(') return false;
    const std::size_t close = text.find(')');
    if (close > 40) return false;  // none (npos) or too far for an address
    pci = canonical_pci_address(text.substr(1, close - 1));
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return false;
    rest = trim_left(rest.substr(1));
    const std::optional<std::uint64_t> value = leading_number(rest);
    if (!value || *value > 1000000) return false;
    number = static_cast<int>(*value);
    if (!rest.empty() && rest.front() == ',') rest.remove_prefix(1);
    text = trim_left(rest);
    return true;
}

std::optional<int> number_after(std::string_view text, std::string_view marker, int base = 10) {
    const std::size_t at = text.find(marker);
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view rest = text.substr(at + marker.size());
    const std::optional<std::uint64_t> value = leading_number(rest, base);
    if (!value || *value > 1000000) return std::nullopt;
    return static_cast<int>(*value);
}

// "Fatal" or "Non-fatal"/"Nonfatal" among the first words of an SXid's or NVLink Xid's text.
std::optional<bool> fatality(std::string_view detail) {
    const std::string_view head = detail.substr(0, 40);
    for (std::size_t at = 0; at < head.size();) {
        const std::size_t end = std::min(head.find_first_of(" ,", at), head.size());
        const std::string_view word = head.substr(at, end - at);
        if (word == "Fatal") return true;
        if (word == "Non-fatal" || word == "Nonfatal" || word == "Non-Fatal") return false;
        at = end + 1;
    }
    return std::nullopt;
}

// "0000:3b:00.0", written by hand: fmt costs more than the rest of an Xid line's parse.
std::string pci_words(std::uint64_t domain, std::uint64_t bus, std::uint64_t device, std::uint64_t function) {
    constexpr char digits[] = "0123456789abcdef";
    std::string text;
    int width = 4;
    while (width < 8 && (domain >> (4 * width)) != 0) ++width;
    for (int shift = 4 * (width - 1); shift >= 0; shift -= 4) text += digits[(domain >> shift) & 0xf];
    text += ':';
    text += digits[(bus >> 4) & 0xf];
    text += digits[bus & 0xf];
    text += ':';
    text += digits[(device >> 4) & 0xf];
    text += digits[device & 0xf];
    text += '.';
    text += digits[function & 0xf];
    return text;
}

}  // namespace

std::string canonical_pci_address(std::string_view text) {
    text = sys::trim(text);
    if (text.starts_with("PCI:")) text.remove_prefix(4);
    std::string_view rest = text;
    const std::size_t domain_length = rest.find(':');
    if (domain_length < 4 || domain_length > 8) return {};
    const std::optional<std::uint64_t> domain = parse_number(rest.substr(0, domain_length), 16);
    rest.remove_prefix(domain_length + 1);
    // Drivers before about 2012 wrote domain and bus only ("NVRM: Xid (0000:05): 13, …"): device 0.
    if (rest.size() == 2 && domain_length == 4) {
        const std::optional<std::uint64_t> bus = parse_number(rest, 16);
        if (!domain || !bus) return {};
        return pci_words(*domain, *bus, 0, 0);
    }
    if (rest.size() < 5 || rest[2] != ':') return {};
    const std::optional<std::uint64_t> bus = parse_number(rest.substr(0, 2), 16);
    const std::optional<std::uint64_t> device = parse_number(rest.substr(3, 2), 16);
    rest.remove_prefix(5);
    std::optional<std::uint64_t> function = 0;
    if (!rest.empty()) function = rest.size() == 2 && rest[0] == '.' ? parse_number(rest.substr(1), 16) : std::nullopt;
    if (!domain || !bus || !device || !function || *device > 0x1f || *function > 7) return {};
    return pci_words(*domain, *bus, *device, *function);
}

void KernelLogParser::add_text(std::string_view text) {
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        add_line(text.substr(0, end));
        if (end == std::string_view::npos) break;
        text.remove_prefix(end + 1);
    }
}

void KernelLogParser::add_line(std::string_view line) {
    ++lines_;
    if (line.size() > longest_line) line = line.substr(0, longest_line);
    // Most of a log is not the driver's: two searches decide, before anything is parsed.
    if (!contains(line, "NVRM") && !contains(line, "nvidia")) return;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const std::optional<KmsgRecord> record = kmsg_record(line)) {
        const std::optional<double> seconds = static_cast<double>(record->microseconds) / 1e6;
        if (!contains(record->text, "\\x")) {
            add_driver_text(record->text, seconds);
            return;
        }
        const std::string text = unescape_kmsg(record->text);
        std::string_view rest = text;
        while (!rest.empty()) {
            const std::size_t end = rest.find('\n');
            add_driver_text(rest.substr(0, end), seconds);
            if (end == std::string_view::npos) break;
            rest.remove_prefix(end + 1);
        }
        return;
    }
    std::size_t at = line.find("NVRM:");
    if (at == std::string_view::npos) at = line.find("nvidia-nvswitch");
    if (at == std::string_view::npos) return;
    add_driver_text(line.substr(at), stamp_before(line.substr(0, at)));
}

void KernelLogParser::add_driver_text(std::string_view text, std::optional<double> seconds) {
    text = sys::trim(text);
    const std::size_t at = text.find("NVRM:");
    const bool nvrm = at != std::string_view::npos;
    if (nvrm) text = text.substr(at);
    else if (const std::size_t switch_at = text.find("nvidia-nvswitch"); switch_at != std::string_view::npos)
        text = text.substr(switch_at);
    else return;
    ++driver_lines_;
    KernelLogEvent event;
    event.seconds = seconds;
    // The line's text is copied into the event only when it is one (keep below): most of the
    // driver's lines are none, and an Xid storm is thousands of lines (docs/performance.md).
    const auto keep = [&] {
        event.line = printable_line(text);
        events_.push_back(std::move(event));
    };
    const std::string pending = std::exchange(pending_gpu_, {});
    const std::optional<double> pending_seconds = std::exchange(pending_seconds_, std::nullopt);
    if (!nvrm) {
        // nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, Link 46 egress ... (Fabric Manager
        // user guide, "NVSwitch Errors").
        const std::size_t sxid = text.find("SXid ");
        if (sxid == std::string_view::npos) return;
        std::string_view rest = trim_left(text.substr(sxid + 5));
        if (!parse_address_and_number(rest, event.pci, event.number)) return;
        event.kind = KernelLogEventKind::sxid;
        event.fatal = fatality(rest);
        // The driver follows an SXid's line with "Data {…}" and "Severity N Engine instance …" lines
        // of the same error: only the line with the severity word counts, so one error is one event.
        if (!event.fatal) return;
        event.detail = printable_line(rest);
        keep();
        return;
    }
    std::string_view body = trim_left(text.substr(5));
    if (body.starts_with("Xid ")) {
        // NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob, channel 0x0000000a, intr 00000000. MMU Fault: …
        // and the older NVRM: Xid (0000:3b:00): 79, GPU has fallen off the bus.
        std::string_view rest = trim_left(body.substr(4));
        if (!parse_address_and_number(rest, event.pci, event.number)) return;
        if (rest.starts_with("pid=")) {
            rest.remove_prefix(4);
            if (const std::optional<std::uint64_t> pid = parse_number(take_field(rest)); pid && *pid <= 0xffffffffU)
                event.pid = static_cast<unsigned int>(*pid);
        }
        if (rest.starts_with("name=")) {
            rest.remove_prefix(5);
            const std::string_view name = take_field(rest);
            if (name != "<unknown>" && name != "'<unknown>'") event.process = printable_text(name);
        }
        event.detail = printable_line(rest);
        event.caused_by = number_after(rest, "previous Xid ");  // "… caused by previous Xid 149"
        // Xid 154: "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)".
        if (event.number == 154) event.recovery_action = number_after(rest, " to 0x", 16);
        // The NVLink Xids (144-150) say "Fatal" or "Nonfatal" (leptonai/gpud#1160).
        if (event.number >= 144 && event.number <= 150) event.fatal = fatality(rest);
        keep();
        return;
    }
    if (const std::size_t uuid = body.find("GPU-", 7); body.starts_with("GPU at ") && uuid != std::string_view::npos) {
        // NVRM: GPU at PCI:0000:00:06: GPU-<uuid>, printed before a GPU's first Xid (older drivers:
        // "GPU at 0000:03:00: GPU-…").
        event.kind = KernelLogEventKind::gpu_identity;
        event.pci = find_pci_address(body.substr(0, uuid));
        event.uuid = printable_line(body.substr(uuid, body.find_first_of(" ,", uuid) - uuid));
        if (event.pci.empty()) return;
        // The driver prints it before each Xid of a GPU: one event while the GPU keeps its UUID.
        std::string& known = identities_[event.pci];
        if (known == event.uuid) return;
        known = event.uuid;
        keep();
        return;
    }
    if (contains(body, "Persistence mode is deprecated")) {
        // A note, not a fault: the first of its lines is the one event.
        if (std::exchange(persistence_noted_, true)) return;
        event.kind = KernelLogEventKind::persistence_deprecated;
        keep();
        return;
    }
    // One message over three lines: "NVRM: The NVIDIA GPU 0000:b3:00.0" / "NVRM: (PCI ID: 10de:26b5)
    // installed in this system has" / "NVRM: fallen off the bus and is not responding to commands."
    if (body.starts_with("The NVIDIA GPU ")) {
        pending_gpu_ = find_pci_address(body);
        pending_seconds_ = seconds;
        if (!contains(body, "fallen off the bus")) return;
    } else if (body.starts_with("(PCI ID:")) {
        pending_gpu_ = pending;
        pending_seconds_ = pending_seconds;
        return;
    }
    if (contains(body, "fallen off the bus")) {
        event.kind = KernelLogEventKind::fallen_off_bus;
    } else if (contains(body, "RmInitAdapter failed")) {
        event.kind = KernelLogEventKind::rm_init_adapter_failed;
    } else if ((contains(body, "GSP") && (contains(body, "imeout") || contains(body, "timed out"))) ||
               contains(body, "GSP-CrashCat Report")) {
        // "_kgspLogXid119: ***** GSP Timeout *****", "_kgspRpcRecvPoll: … timeout", and the report the
        // GSP health check prints when the firmware crashed ("kgspHealthCheck_TU102: *** GSP-CrashCat
        // Report ***", open-gpu-kernel-modules#1045).
        event.kind = KernelLogEventKind::gsp_timeout;
    } else {
        return;
    }
    event.pci = find_pci_address(body);
    if (event.pci.empty() && !pending.empty()) {
        // The rest of a message split over lines: its GPU and stamp are its first line's.
        event.pci = pending;
        if (pending_seconds) event.seconds = pending_seconds;
    } else if (event.pci.empty() && !pending_gpu_.empty()) {
        event.pci = pending_gpu_;
    }
    pending_gpu_.clear();
    pending_seconds_.reset();
    keep();
}

std::vector<KernelLogEvent> parse_kernel_log(std::string_view text) {
    KernelLogParser parser;
    parser.add_text(text);
    return parser.take_events();
}

std::string describe_unreadable_kernel_log(const KernelLogAccess& access) {
    const std::string& path = access.path;
    if (access.error == ENOENT) {
        if (access.in_container)
            return fmt::format(
                "kernel log not readable: {} is absent in this container, which was not given the host's log (run "
                "cudacheck on the host, or give the container /dev/kmsg and CAP_SYSLOG)",
                path);
        return fmt::format("kernel log not readable: {} is absent", path);
    }
    if (access.error == EPERM || access.error == EACCES) {
        const bool lacks = access.has_cap_syslog.has_value() && !*access.has_cap_syslog;
        if (access.dmesg_restrict == 1 && lacks)
            return access.in_container ? "kernel log not readable: dmesg_restrict is 1 and this process lacks "
                                         "CAP_SYSLOG (run as root on the host, or give the container CAP_SYSLOG)"
                                       : "kernel log not readable: dmesg_restrict is 1 and this process lacks "
                                         "CAP_SYSLOG (run as root)";
        if (lacks)
            return fmt::format(
                "kernel log not readable: {} refused ({}) and this process lacks CAP_SYSLOG (run as root)", path,
                std::strerror(access.error));
        return fmt::format("kernel log not readable: {} refused ({}){}", path, std::strerror(access.error),
                           access.in_container ? ": a container's security profile may forbid it" : "");
    }
    return fmt::format("kernel log not readable: {}: {}", path, std::strerror(access.error));
}

std::optional<double> KernelLogReading::age_of(const KernelLogEvent& event) const {
    if (!event.seconds || !uptime_seconds) return std::nullopt;
    // A stamp past the clock: a log of another boot (a saved one), whose ages are not known here.
    if (*event.seconds > *uptime_seconds + 1) return std::nullopt;
    return std::max(0.0, *uptime_seconds - *event.seconds);
}

namespace {

using Clock = std::chrono::steady_clock;

double milliseconds_since(Clock::time_point start) {
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

// Feeds a stream of text to the parser line by line, keeping the reading's counts.
class LineFeed {
public:
    LineFeed(KernelLogParser& parser, KernelLogReading& reading) : parser_(parser), reading_(reading) {}
    void line(std::string_view text) {
        if (reading_.lines == 0) first_line(text);
        ++reading_.lines;
        parser_.add_line(text);
    }
    void text(std::string_view chunk) {
        while (!chunk.empty()) {
            const std::size_t end = chunk.find('\n');
            if (end == std::string_view::npos) {
                if (partial_.size() < longest_line) partial_.append(chunk.substr(0, longest_line - partial_.size()));
                return;
            }
            if (partial_.empty()) {
                line(chunk.substr(0, end));
            } else {
                if (partial_.size() < longest_line) partial_.append(chunk.substr(0, std::min(end, longest_line)));
                line(partial_);
                partial_.clear();
            }
            chunk.remove_prefix(end + 1);
        }
    }
    void finish() {
        if (!partial_.empty()) line(partial_);
        partial_.clear();
    }

private:
    void first_line(std::string_view text) {
        if (const std::optional<KmsgRecord> record = kmsg_record(text)) {
            reading_.first_seconds = static_cast<double>(record->microseconds) / 1e6;
            reading_.wrapped = record->sequence != 0;
        } else {
            reading_.first_seconds = stamp_before(text.substr(0, 64));
        }
    }
    KernelLogParser& parser_;
    KernelLogReading& reading_;
    std::string partial_;
};

// The clock /dev/kmsg stamps records with (the scheduler clock, local_clock()), which like
// CLOCK_MONOTONIC stops while the machine is suspended; /proc/uptime does not stop, so ages taken
// from it would grow by every suspension. A crafted root gives its own proc/uptime.
std::optional<double> uptime_now(const std::string& root) {
    if (root.empty()) {
        timespec now{};
        if (::clock_gettime(CLOCK_MONOTONIC, &now) != 0) return std::nullopt;
        return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
    }
    const std::optional<std::string> text = sys::read_file(root + "/proc/uptime", 256);
    if (!text) return std::nullopt;
    return parse_stamp(std::string_view(*text).substr(0, text->find(' ')));
}

enum class Outcome { read, refused };

// /dev/kmsg: each read(2) returns one record; EAGAIN (O_NONBLOCK) once all are read; EPIPE when the
// record about to be read was overwritten meanwhile (the next read goes on with the oldest left).
// A regular file there (a crafted root) is read whole, as lines.
Outcome read_kmsg(const std::string& path, const KernelLogSettings& settings, Clock::time_point start,
                  KernelLogReading& reading, int& error) {
    const sys::FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (fd.get() < 0) {
        error = errno;
        return Outcome::refused;
    }
    struct stat status{};
    if (::fstat(fd.get(), &status) != 0) {
        error = errno;
        return Outcome::refused;
    }
    KernelLogParser parser;
    LineFeed feed(parser, reading);
    reading.source = path;
    const bool device = S_ISCHR(status.st_mode);
    if (!device && !S_ISREG(status.st_mode)) {
        error = EINVAL;
        return Outcome::refused;
    }
    std::string buffer(device ? 16384 : 65536, '\0');
    for (std::size_t round = 0;; ++round) {
        if (reading.bytes >= settings.byte_limit) {
            reading.limited = fmt::format("stopped after {} MiB", settings.byte_limit >> 20);
            break;
        }
        if (round % 64 == 63 && milliseconds_since(start) > settings.time_limit_ms) {
            reading.limited = fmt::format("stopped after {} ms", settings.time_limit_ms);
            break;
        }
        const std::size_t want = std::min(buffer.size(), settings.byte_limit - reading.bytes);
        const ssize_t n = ::read(fd.get(), buffer.data(), want);
        if (n < 0 && (errno == EINTR || errno == EPIPE)) continue;
        if (n < 0 && errno == EAGAIN) break;
        if (n < 0) {
            if (reading.lines == 0) {
                error = errno;
                return Outcome::refused;
            }
            reading.limited = fmt::format("a read failed: {}", std::strerror(errno));
            break;
        }
        if (n == 0) break;
        reading.bytes += static_cast<std::size_t>(n);
        std::string_view chunk(buffer.data(), static_cast<std::size_t>(n));
        if (device) {
            // One record, its text ending in a newline, then its dictionary lines (" SUBSYSTEM=pci").
            feed.line(chunk.substr(0, chunk.find('\n')));
        } else {
            feed.text(chunk);
        }
    }
    feed.finish();
    reading.driver_lines = parser.driver_lines();
    reading.events = parser.take_events();
    reading.readable = true;
    return Outcome::read;
}

// syslog(2)'s SYSLOG_ACTION_READ_ALL: the ring buffer as text, "<6>[  123.456] text" lines; what
// dmesg reads where /dev/kmsg is absent. Same permission as /dev/kmsg (dmesg_restrict, CAP_SYSLOG).
Outcome read_syslog(const KernelLogSettings& settings, KernelLogReading& reading, int& error) {
    constexpr int action_read_all = 3;      // SYSLOG_ACTION_READ_ALL (syslog(2))
    constexpr int action_size_buffer = 10;  // SYSLOG_ACTION_SIZE_BUFFER
    const int size = ::klogctl(action_size_buffer, nullptr, 0);
    if (size <= 0) {
        error = size < 0 ? errno : ENODATA;
        return Outcome::refused;
    }
    std::string buffer(std::min<std::size_t>(static_cast<std::size_t>(size), settings.byte_limit), '\0');
    const int n = ::klogctl(action_read_all, buffer.data(), static_cast<int>(buffer.size()));
    if (n <= 0) {
        error = n < 0 ? errno : ENODATA;
        return Outcome::refused;
    }
    buffer.resize(static_cast<std::size_t>(n));
    KernelLogParser parser;
    LineFeed feed(parser, reading);
    feed.text(buffer);
    feed.finish();
    reading.source = "syslog(2)";
    reading.bytes = buffer.size();
    reading.driver_lines = parser.driver_lines();
    reading.events = parser.take_events();
    reading.readable = true;
    return Outcome::read;
}

// The journal's kernel lines of this boot, newest first (-r), so that the first MiB run_command keeps
// holds the latest; turned back into the kernel's order before parsing. Only the system's own
// journalctl (no PATH search: cudacheck often runs as root).
Outcome read_journal(const KernelLogSettings& settings, KernelLogReading& reading, std::string& why) {
    if (!settings.journal) {
        why = "journalctl is a program, which --level quick does not start (--level standard asks it)";
        return Outcome::refused;
    }
    std::string program;
    for (const char* candidate : {"/usr/bin/journalctl", "/bin/journalctl"})
        if (sys::is_executable_file(candidate)) {
            program = candidate;
            break;
        }
    if (program.empty()) {
        why = "no journalctl";
        return Outcome::refused;
    }
    const sys::CommandResult run =
        sys::run_command({program, "-k", "-b", "-r", "-q", "--no-pager", "-o", "short-monotonic"},
                         std::chrono::milliseconds(settings.journal_time_limit_ms));
    if (!run.started || run.exit_status != 0 || run.output.empty() || run.output.starts_with("-- No entries --")) {
        why = !run.started    ? fmt::format("journalctl did not start: {}", run.error)
              : run.timed_out ? fmt::format("journalctl did not finish within {} ms", settings.journal_time_limit_ms)
              : run.exit_status != 0 ? fmt::format("journalctl -k -b failed: {}",
                                                   printable_line(run.output.substr(0, run.output.find('\n'))))
                                     : "the journal holds no kernel line of this boot";
        return Outcome::refused;
    }
    std::string_view output = run.output;
    // Cut at the 1 MiB run_command keeps: the last line may be partial, and the older lines are lost.
    if (output.size() >= (std::size_t{1} << 20)) {
        output = output.substr(0, output.rfind('\n') + 1);
        reading.limited = "journalctl gave more than 1 MiB: only the latest lines were read";
    }
    // Entries, newest first; an entry's further lines (one message over several) are indented and
    // stay in their order.
    std::vector<std::vector<std::string_view>> entries;
    for (std::size_t at = 0; at < output.size();) {
        const std::size_t end = std::min(output.find('\n', at), output.size());
        const std::string_view line = output.substr(at, end - at);
        if (entries.empty() || line.empty() || (line.front() != ' ' && line.front() != '\t')) entries.emplace_back();
        entries.back().push_back(line);
        at = end + 1;
    }
    KernelLogParser parser;
    LineFeed feed(parser, reading);
    for (auto entry = entries.rbegin(); entry != entries.rend(); ++entry)
        for (const std::string_view line : *entry) feed.line(line);
    reading.source = "journalctl -k -b";
    reading.bytes = output.size();
    reading.driver_lines = parser.driver_lines();
    reading.events = parser.take_events();
    reading.readable = true;
    return Outcome::read;
}

KernelLogAccess access_facts(const KernelLogSettings& settings, const std::string& path, int error) {
    KernelLogAccess access;
    access.error = error;
    access.path = path;
    access.in_container = !settings.container.empty();
    if (const std::optional<std::string> restrict =
            sys::read_file(settings.root + "/proc/sys/kernel/dmesg_restrict", 64))
        if (const std::optional<std::uint64_t> value = parse_number(sys::trim(*restrict)))
            access.dmesg_restrict = static_cast<int>(*value);
    constexpr int cap_syslog = 34;  // linux/capability.h
    if (const std::optional<std::string> status = sys::read_file("/proc/self/status", 1 << 16))
        access.has_cap_syslog = parse_capability(*status, cap_syslog);
    return access;
}

}  // namespace

KernelLogReading read_kernel_log(const KernelLogSettings& settings) {
    const Clock::time_point start = Clock::now();
    KernelLogReading reading;
    reading.uptime_seconds = uptime_now(settings.root);
    const std::string path = settings.path.empty() ? settings.root + "/dev/kmsg" : settings.path;
    int error = 0;
    if (read_kmsg(path, settings, start, reading, error) == Outcome::read) {
        if (reading.lines == 0) {
            reading.readable = false;
            reading.unreadable =
                fmt::format("kernel log not readable: {} holds no line, not even the boot's{}", path,
                            settings.container.empty() ? "" : " (this container's own log, not the host's)");
        }
        reading.read_ms = milliseconds_since(start);
        return reading;
    }
    reading = KernelLogReading{};
    reading.uptime_seconds = uptime_now(settings.root);
    reading.unreadable = describe_unreadable_kernel_log(access_facts(settings, path, error));
    if (settings.root.empty() && settings.path.empty()) {
        int syslog_error = 0;
        std::string journal_why;
        if (read_syslog(settings, reading, syslog_error) == Outcome::read ||
            read_journal(settings, reading, journal_why) == Outcome::read) {
            reading.unreadable.clear();
        } else {
            reading.unreadable += fmt::format("; syslog(2): {}; {}", std::strerror(syslog_error), journal_why);
        }
    }
    reading.read_ms = milliseconds_since(start);
    return reading;
}

}  // namespace cudacheck
