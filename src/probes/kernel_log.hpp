// The NVIDIA driver's own account of GPU faults: its lines of the kernel log since boot (Xid and SXid
// events, GPUs fallen off the bus, GSP timeouts, adapters that failed to initialise), each with its
// age. Reading (/dev/kmsg, else syslog(2) as dmesg does, else the journal) is separate from parsing:
// the parser is a pure function over text lines, so fixtures of every line form drive it in tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {

enum class KernelLogEventKind {
    xid,                     // NVRM: Xid (PCI:0000:3b:00): 79, pid=…, name=…, text
    sxid,                    // nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, text
    gpu_identity,            // NVRM: GPU at PCI:0000:3b:00: GPU-<uuid>
    fallen_off_bus,          // NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus. (not an Xid line)
    gsp_timeout,             // NVRM: _kgspLogXid119: ***** GSP Timeout ***** (not an Xid line)
    rm_init_adapter_failed,  // NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)
    persistence_deprecated,  // NVRM: Persistence mode is deprecated and will be removed ...
};

// One line of the driver that matters.
struct KernelLogEvent {
    KernelLogEventKind kind = KernelLogEventKind::xid;
    std::optional<double> seconds;  // since boot, as the kernel stamped the line; none when the line had no stamp
    std::string pci;                // the GPU or NVSwitch it names, "0000:3b:00.0"; "" when it names none
    int number = 0;                 // the Xid or SXid
    std::optional<unsigned int> pid;  // none for pid='<unknown>' and lines that name no process
    std::string process;              // name=…; "" for <unknown> and lines that name none
    std::string detail;               // the text after the number, pid and name
    std::optional<int> caused_by;     // "… caused by previous Xid 149"
    // Xid 154 ("GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"): the
    // nvmlDeviceGpuRecoveryAction_t value the driver now asks for.
    std::optional<int> recovery_action;
    std::optional<bool> fatal;  // an SXid's "Fatal" / "Non-fatal"; none when the line does not say
    std::string uuid;           // gpu_identity: "GPU-…"
    std::string line;           // the driver's text, from "NVRM:" or "nvidia-nvswitchN:" on
};

// "0000:3b:00.0" from "0000:3b:00", "PCI:0000:3b:00", "0000:3B:00.0" or NVML's "00000000:3B:00.0";
// "" when `text` is no PCI address.
[[nodiscard]] std::string canonical_pci_address(std::string_view text);

// Turns kernel-log lines into events. Each line may be a /dev/kmsg record ("6,1234,5678901,-;text"),
// a dmesg line ("[  123.456789] text", "<4>[ 12.3] text", "[Tue Dec  1 10:00:00 2026] text"), a
// journal line ("[  123.456789] host kernel: text" from `journalctl -o short-monotonic`, or
// "Dec 03 10:00:00 host kernel: text"), or the driver's text alone; only lines carrying "NVRM" or
// "nvidia" are looked at further. Stateful where the driver splits one message over lines
// ("NVRM: The NVIDIA GPU 0000:3b:00.0" then "NVRM: fallen off the bus ..."), and where it repeats a
// line that says nothing new: a GPU's identity line (printed before each of its Xids) is an event
// when it names a GPU's UUID for the first time or a new one, the persistence note once. Never throws.
class KernelLogParser {
public:
    void add_line(std::string_view line);
    // Everything `text` holds, line by line.
    void add_text(std::string_view text);
    [[nodiscard]] const std::vector<KernelLogEvent>& events() const { return events_; }
    [[nodiscard]] std::vector<KernelLogEvent> take_events() { return std::move(events_); }
    // Lines given, and those of the driver among them.
    [[nodiscard]] std::size_t lines() const { return lines_; }
    [[nodiscard]] std::size_t driver_lines() const { return driver_lines_; }

private:
    void add_driver_text(std::string_view text, std::optional<double> seconds);
    std::vector<KernelLogEvent> events_;
    std::map<std::string, std::string> identities_;  // the UUID last named for each GPU address
    bool persistence_noted_ = false;
    std::string pending_gpu_;  // from "NVRM: The NVIDIA GPU <pci>", for the lines that follow it
    std::optional<double> pending_seconds_;  // and that line's stamp
    std::size_t lines_ = 0;
    std::size_t driver_lines_ = 0;
};

// Parses a whole log (any of the line forms above).
[[nodiscard]] std::vector<KernelLogEvent> parse_kernel_log(std::string_view text);

// Why the kernel log could not be read, in words a person acts on: "kernel log not readable:
// dmesg_restrict is 1 and this process lacks CAP_SYSLOG (run as root)". `error` is the errno of
// opening `path`.
struct KernelLogAccess {
    int error = 0;
    std::string path = {};                    // "/dev/kmsg"
    std::optional<int> dmesg_restrict = {};   // /proc/sys/kernel/dmesg_restrict
    std::optional<bool> has_cap_syslog = {};  // CAP_SYSLOG in this process's effective set
    bool in_container = false;
};
[[nodiscard]] std::string describe_unreadable_kernel_log(const KernelLogAccess& access);

// What reading found.
struct KernelLogReading {
    bool readable = false;
    std::string source;      // "/dev/kmsg", "syslog(2)", "journalctl -k -b", or the file read
    std::string unreadable;  // why not, when not readable: one line
    std::vector<KernelLogEvent> events;
    std::optional<double> uptime_seconds;  // now, on the clock the kernel stamps its lines with
    std::size_t bytes = 0;                 // read
    std::size_t lines = 0;                 // records or lines read
    std::size_t driver_lines = 0;          // of the driver among them
    // The earliest stamp read, and whether older lines were lost (the ring buffer wrapped: /dev/kmsg's
    // first sequence number is not 0): events before it are unknown.
    std::optional<double> first_seconds;
    bool wrapped = false;
    // A limit (size or time) stopped the reading before the end: its words; "" when it did not.
    std::string limited;
    double read_ms = 0;

    // The age of an event in seconds, when both its stamp and the uptime are known.
    [[nodiscard]] std::optional<double> age_of(const KernelLogEvent& event) const;
};

struct KernelLogSettings {
    // A directory standing in for "/": its dev/kmsg (a character device read record by record, or a
    // file of records or lines read whole), proc/uptime and proc/sys/kernel/dmesg_restrict. "" is the
    // real system, where syslog(2) and journalctl are tried too when /dev/kmsg cannot be read.
    std::string root = {};
    // A file or device read instead of <root>/dev/kmsg, with no other source tried after it
    // (CUDACHECK_KERNEL_LOG: a saved log, a test's fixture); "" for none.
    std::string path = {};
    // The container runtime cudacheck runs in ("docker", … as host.os detects it; "" on a host): a
    // log that cannot be read is then most likely the container's doing, and the words say so.
    std::string container = {};
    std::size_t byte_limit = std::size_t{16} << 20;
    int time_limit_ms = 200;
    int journal_time_limit_ms = 1000;  // journalctl starts and reads an index: more than /dev/kmsg
    // Whether journalctl may be run (the last source tried): `--level quick` reads files only.
    bool journal = true;
};

[[nodiscard]] KernelLogReading read_kernel_log(const KernelLogSettings& settings);

}  // namespace cudacheck
