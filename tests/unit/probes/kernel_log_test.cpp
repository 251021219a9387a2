// The kernel log (probes/kernel_log): every line form of the driver's Xid, SXid and NVRM lines, the
// stamps of /dev/kmsg, dmesg and the journal, hostile input, and the reader on crafted roots.
#include "support/fixtures.hpp"
#include "support/test_support.hpp"

#include "checks/driver_kernel_log.hpp"
#include "cuda/xid_catalog.hpp"
#include "probes/kernel_log.hpp"
#include "report/catalog.hpp"
#include "util/system.hpp"

#include <fmt/format.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudacheck;
using cudacheck::test::contains;
using cudacheck::test::TempDir;

// The Xid 31 the project's GPU machine logged (1 x H200, driver 580.159.04) after a kernel wrote
// through a wild pointer, as a /dev/kmsg record (Documentation/ABI/testing/dev-kmsg).
constexpr std::string_view h200_xid31 =
    "NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob, channel 0x0000000a, intr 00000000. MMU Fault: ENGINE "
    "GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x83a4_5de00000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_WRITE";

KernelLogEvent only_event(std::string_view text) {
    const std::vector<KernelLogEvent> events = parse_kernel_log(text);
    EXPECT_EQ(events.size(), 1U) << text;
    return events.empty() ? KernelLogEvent{} : events.front();
}

TEST(KernelLogPci, canonical_address_from_each_spelling) {
    EXPECT_EQ(canonical_pci_address("PCI:0000:00:06"), "0000:00:06.0");
    EXPECT_EQ(canonical_pci_address("0000:3b:00"), "0000:3b:00.0");
    EXPECT_EQ(canonical_pci_address("0000:B3:00.0"), "0000:b3:00.0");
    EXPECT_EQ(canonical_pci_address("00000000:3B:00.0"), "0000:3b:00.0");  // NVML's spelling
    EXPECT_EQ(canonical_pci_address("0019:01:00"), "0019:01:00.0");
    EXPECT_EQ(canonical_pci_address("0000:05"), "0000:05:00.0");  // drivers before about 2012
    EXPECT_EQ(canonical_pci_address("0000:3b"), "0000:3b:00.0");
    EXPECT_EQ(canonical_pci_address("GPU0"), "");
    EXPECT_EQ(canonical_pci_address("0000:3b:00.9"), "");
    EXPECT_EQ(canonical_pci_address("zz:zz:zz"), "");
    EXPECT_EQ(canonical_pci_address(""), "");
}

TEST(KernelLogParser, reads_the_h200_xid_31_record_with_pid_name_and_stamp) {
    const KernelLogEvent event = only_event("4,1203,1843308145,-;" + std::string(h200_xid31));
    EXPECT_EQ(event.kind, KernelLogEventKind::xid);
    EXPECT_EQ(event.number, 31);
    EXPECT_EQ(event.pci, "0000:00:06.0");
    ASSERT_TRUE(event.pid.has_value());
    EXPECT_EQ(*event.pid, 4889U);
    EXPECT_EQ(event.process, "oob");
    ASSERT_TRUE(event.seconds.has_value());
    EXPECT_NEAR(*event.seconds, 1843.308145, 1e-6);
    EXPECT_TRUE(event.detail.starts_with("channel 0x0000000a, intr 00000000. MMU Fault")) << event.detail;
    EXPECT_TRUE(contains(event.detail, "ACCESS_TYPE_VIRT_WRITE"));
    EXPECT_EQ(event.line, h200_xid31);
}

TEST(KernelLogParser, reads_unknown_pid_and_name_of_a_dmesg_ctime_line) {
    // leptonai/gpud components/accelerator/nvidia/error/xid/README.md (dmesg --ctime).
    const KernelLogEvent event = only_event(
        "[Fri Aug 30 11:43:09 2024] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM "
        "Warp Exception on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter");
    EXPECT_EQ(event.number, 13);
    EXPECT_EQ(event.pci, "0000:cb:00.0");
    EXPECT_FALSE(event.pid.has_value());
    EXPECT_EQ(event.process, "");
    EXPECT_FALSE(event.seconds.has_value());  // dmesg -T's wall-clock stamp is no age
    EXPECT_TRUE(event.detail.starts_with("Graphics SM Warp Exception")) << event.detail;
}

TEST(KernelLogParser, reads_the_old_forms_without_pid) {
    // NVIDIA's Xid catalog ("Step 1"): "[...] NVRM: Xid (0000:03:00): 14, Channel 00000001".
    const KernelLogEvent old = only_event("[...] NVRM: Xid (0000:03:00): 14, Channel 00000001");
    EXPECT_EQ(old.number, 14);
    EXPECT_EQ(old.pci, "0000:03:00.0");
    EXPECT_FALSE(old.pid.has_value());
    EXPECT_EQ(old.detail, "Channel 00000001");
    // Bumblebee-Project/Bumblebee#677.
    const KernelLogEvent no_pid =
        only_event("[24128.834365] NVRM: Xid (PCI:0000:01:00): 31, Ch 00000003, engmask 00000101, intr 10000000");
    EXPECT_EQ(no_pid.number, 31);
    ASSERT_TRUE(no_pid.seconds.has_value());
    EXPECT_NEAR(*no_pid.seconds, 24128.834365, 1e-6);
    EXPECT_EQ(no_pid.detail, "Ch 00000003, engmask 00000101, intr 10000000");
    // A 2007 dmesg: domain and bus only.
    const KernelLogEvent oldest = only_event("[   95.788000] NVRM: Xid (0000:05): 29,  L1 -> L0");
    EXPECT_EQ(oldest.number, 29);
    EXPECT_EQ(oldest.pci, "0000:05:00.0");
}

TEST(KernelLogParser, reads_a_journal_line_and_a_process_name_with_colons) {
    // NVIDIA/NVSentinel#1270: the kernel's own stamp after the syslog prefix.
    const KernelLogEvent event = only_event(
        "kernel: [16450076.435595] NVRM: Xid (PCI:0002:00:00): 119, pid=1582259, name=nvc:[driver], Timeout after 6s "
        "of waiting for RPC response from GPU1 GSP! Expected function 76 (GSP_RM_CONTROL) (0x20802a02 0x8).");
    EXPECT_EQ(event.number, 119);
    EXPECT_EQ(event.pci, "0002:00:00.0");
    EXPECT_EQ(event.process, "nvc:[driver]");
    ASSERT_TRUE(event.pid.has_value());
    EXPECT_EQ(*event.pid, 1582259U);
    ASSERT_TRUE(event.seconds.has_value());
    EXPECT_NEAR(*event.seconds, 16450076.435595, 1e-3);
    // journalctl -o short-monotonic: "[  stamp] host kernel: text".
    const KernelLogEvent monotonic = only_event(
        "[  171.328120] node-7 kernel: NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.");
    ASSERT_TRUE(monotonic.seconds.has_value());
    EXPECT_NEAR(*monotonic.seconds, 171.32812, 1e-6);
    EXPECT_EQ(monotonic.number, 79);
    EXPECT_EQ(monotonic.detail, "GPU has fallen off the bus.");
    // A syslog file's wall-clock prefix alone: the line, no age.
    const KernelLogEvent syslog = only_event(
        "Jul 11 05:51:26 gpu-node-01 kernel: NVRM: Xid (PCI:0000:2a:00): 120, GSP kernel exception: load "
        "access page fault (cause:0xd) @ pc:0xffffffff9300188a, partition:4#0");
    EXPECT_EQ(syslog.number, 120);
    EXPECT_FALSE(syslog.seconds.has_value());
}

TEST(KernelLogParser, reads_caused_by_previous_xid_and_the_xid_154_action) {
    // NVIDIA/open-gpu-kernel-modules#1150.
    const KernelLogEvent caused = only_event(
        "kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 caused by previous Xid 149");
    EXPECT_EQ(caused.number, 45);
    ASSERT_TRUE(caused.caused_by.has_value());
    EXPECT_EQ(*caused.caused_by, 149);
    // A dmesg -T capture of an Xid 120 and the Xid 154 after it.
    const KernelLogEvent action = only_event(
        "[Sat Jul 11 05:52:47 2026] NVRM: Xid (PCI:0000:2a:00): 154, GPU recovery action changed from 0x0 (None) to "
        "0x1 (GPU Reset Required)");
    EXPECT_EQ(action.number, 154);
    ASSERT_TRUE(action.recovery_action.has_value());
    EXPECT_EQ(*action.recovery_action, 1);
    const KernelLogEvent reboot =
        only_event("NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x0 (None) to 0x2 (OS Reboot)");
    EXPECT_EQ(reboot.recovery_action, 2);
}

TEST(KernelLogParser, reads_nvlink_and_sxid_fatality) {
    // leptonai/gpud#1160 and #1174.
    EXPECT_EQ(only_event("NVRM: Xid (PCI:0000:01:00): 144, SAW_MVB Nonfatal XC0 i0 Link 0 (0x00000001 0x00000008 "
                         "0x00000000 0x00000000 0x00000000 0x00000000)")
                  .fatal,
              false);
    EXPECT_EQ(only_event("NVRM: Xid (PCI:0000:00:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x026001c6 0x00000000 "
                         "0x00000000 0x00000000 0x00000000 0x00000000)")
                  .fatal,
              true);
    // NVIDIA Fabric Manager User Guide, "NVSwitch Errors".
    const KernelLogEvent nonfatal = only_event(
        "[  196.919432] nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, Link 46 egress non-posted PRIV "
        "error (First)");
    EXPECT_EQ(nonfatal.kind, KernelLogEventKind::sxid);
    EXPECT_EQ(nonfatal.number, 12028);
    EXPECT_EQ(nonfatal.pci, "0000:c1:00.0");
    EXPECT_EQ(nonfatal.fatal, false);
    EXPECT_TRUE(nonfatal.line.starts_with("nvidia-nvswitch3: SXid"));
    const KernelLogEvent fatal =
        only_event("nvidia-nvswitch0: SXid (PCI:0000:88:00.0): 20034, Fatal, Link 30 LTSSM Fault Up");
    EXPECT_EQ(fatal.fatal, true);
    EXPECT_EQ(fatal.number, 20034);
}

// The driver prints a GPU's identity line before each of its Xids (the GPU machine's Xid 31s): the
// line is an event when the address names a UUID first or a new one; the persistence note once.
TEST(KernelLogParser, keeps_one_event_for_a_line_the_driver_repeats) {
    const std::string first = "NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab\n";
    const std::string other = "NVRM: GPU at PCI:0000:00:06: GPU-664e5272-71cd-a82a-3b95-75d3e3d1f882\n";
    const std::string xid = "NVRM: Xid (PCI:0000:00:06): 31, pid=4701, name=wild_pointer, ACCESS_TYPE_VIRT_WRITE\n";
    const std::string note = "NVRM: Persistence mode is deprecated and will be removed in a future release.\n";
    const std::vector<KernelLogEvent> events =
        parse_kernel_log(note + first + xid + first + xid + note + other + xid + first + xid);
    std::vector<std::string> kinds;
    for (const KernelLogEvent& event : events)
        kinds.push_back(event.kind == KernelLogEventKind::xid                      ? "xid"
                        : event.kind == KernelLogEventKind::gpu_identity           ? event.uuid.substr(0, 12)
                        : event.kind == KernelLogEventKind::persistence_deprecated ? "note"
                                                                                   : "other");
    EXPECT_EQ(kinds, (std::vector<std::string>{"note", "GPU-2a36941f", "xid", "xid", "GPU-664e5272", "xid",
                                               "GPU-2a36941f", "xid"}));
    // Every event still carries its own line; the identity line of another GPU is its own event.
    EXPECT_EQ(events[1].line, sys::trim(first));
    EXPECT_EQ(
        parse_kernel_log(first + "NVRM: GPU at PCI:0000:3b:00: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab\n").size(), 2U);
}

TEST(KernelLogParser, reads_identity_persistence_and_the_other_nvrm_lines) {
    const KernelLogEvent identity =
        only_event("6,1201,1843300000,-;NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab");
    EXPECT_EQ(identity.kind, KernelLogEventKind::gpu_identity);
    EXPECT_EQ(identity.pci, "0000:00:06.0");
    EXPECT_EQ(identity.uuid, "GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab");
    // The GPU machine's boot log.
    EXPECT_EQ(only_event("6,870,9123456,-;NVRM: Persistence mode is deprecated and will be removed in a future "
                         "release. Please use nvidia-persistenced instead.")
                  .kind,
              KernelLogEventKind::persistence_deprecated);
    // Forum reports of GPUs that did not come up (cctvserver, a P40 VM).
    const KernelLogEvent init =
        only_event("[159259.989773] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)");
    EXPECT_EQ(init.kind, KernelLogEventKind::rm_init_adapter_failed);
    EXPECT_EQ(init.pci, "0000:02:00.0");
    EXPECT_EQ(only_event("NVRM: RmInitAdapter failed! (0x62:0x65:2028)").pci, "");
    // The Arch Linux wiki, NVIDIA/Troubleshooting: the banner before an Xid 119.
    const std::vector<KernelLogEvent> gsp = parse_kernel_log(
        "NVRM: _kgspLogXid119: ********************************* GSP Timeout **********************************\n"
        "NVRM: Xid (PCI:0000:01:00): 119, Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected "
        "function 76 (GSP_RM_CONTROL) sequence 1321\n");
    ASSERT_EQ(gsp.size(), 2U);
    EXPECT_EQ(gsp[0].kind, KernelLogEventKind::gsp_timeout);
    EXPECT_EQ(gsp[1].kind, KernelLogEventKind::xid);
    EXPECT_EQ(gsp[1].number, 119);
    EXPECT_FALSE(gsp[1].pid.has_value());
    const KernelLogEvent fallen = only_event("NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.");
    EXPECT_EQ(fallen.kind, KernelLogEventKind::fallen_off_bus);
    EXPECT_EQ(fallen.pci, "0000:01:00.0");
    // Lines of the driver that matter to no finding.
    EXPECT_TRUE(parse_kernel_log("NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
                                 "(nixbld@)\nNVRM: GPU Board Serial Number: 1650123456789\n")
                    .empty());
}

TEST(KernelLogParser, joins_a_message_split_over_lines_to_its_gpu) {
    // The driver's three-line message (NVIDIA/NVSentinel's syslog monitor tests), as dmesg shows it.
    const std::vector<KernelLogEvent> dmesg = parse_kernel_log(
        "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
        "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
        "               NVRM: fallen off the bus and is not responding to commands.\n");
    ASSERT_EQ(dmesg.size(), 1U);
    EXPECT_EQ(dmesg[0].kind, KernelLogEventKind::fallen_off_bus);
    EXPECT_EQ(dmesg[0].pci, "0000:b3:00.0");
    // The same message as one /dev/kmsg record, its newlines escaped as \x0a.
    const std::vector<KernelLogEvent> kmsg = parse_kernel_log(
        "3,2210,1843308145,-;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: (PCI ID: 10de:26b5) installed in this "
        "system has\\x0aNVRM: fallen off the bus and is not responding to commands.\n");
    ASSERT_EQ(kmsg.size(), 1U);
    EXPECT_EQ(kmsg[0].pci, "0000:b3:00.0");
    ASSERT_TRUE(kmsg[0].seconds.has_value());
    // The address does not carry over to an unrelated later line.
    const std::vector<KernelLogEvent> later = parse_kernel_log(
        "NVRM: The NVIDIA GPU 0000:b3:00.0\nNVRM: something else\nNVRM: something more\nNVRM: RmInitAdapter failed!\n");
    ASSERT_EQ(later.size(), 1U);
    EXPECT_EQ(later[0].pci, "");
}

TEST(KernelLogParser, passes_over_other_lines_and_hostile_input) {
    KernelLogParser parser;
    parser.add_text("6,10,0,-;DMI not present or invalid.\n 6,11,0,-;\n[    0.000000] Linux version 6.1.0\n");
    EXPECT_EQ(parser.lines(), 3U);
    EXPECT_EQ(parser.driver_lines(), 0U);
    EXPECT_TRUE(parser.events().empty());
    EXPECT_TRUE(parse_kernel_log("").empty());
    // A truncated record, a record without text, Xid lines cut short or with garbage numbers.
    EXPECT_TRUE(parse_kernel_log("4,1203,18433\n4,1203;\nNVRM: Xid (PCI:0000:00:06\nNVRM: Xid (PCI:0000:00:06): "
                                 "abc, pid=1\nNVRM: Xid\nNVRM: Xid (PCI:0000:00:06): 99999999999999999999, x\n")
                    .empty());
    // Binary garbage with the markers in it.
    std::string garbage;
    for (int i = 0; i < 4096; ++i) garbage += static_cast<char>((i * 131 + 7) % 256);
    garbage += "NVRM: Xid (\xff\xfe): 31, pid=\x01\x02, name=\x1b[31mred, \x00 text";
    garbage += std::string("\0NVRM:\0nvidia-nvswitch: SXid (", 30);
    const std::vector<KernelLogEvent> events = parse_kernel_log(garbage);
    for (const KernelLogEvent& event : events) {
        EXPECT_EQ(event.line.find('\x1b'), std::string::npos);  // control bytes come out escaped
        EXPECT_EQ(event.process.find('\x1b'), std::string::npos);
    }
    // An absurdly long line: cut, read, and the Xid still found at its start.
    const std::string long_line = "NVRM: Xid (PCI:0000:00:06): 13, pid=1, name=x, " + std::string(8 << 20, 'A');
    const std::vector<KernelLogEvent> long_events = parse_kernel_log(long_line);
    ASSERT_EQ(long_events.size(), 1U);
    EXPECT_EQ(long_events[0].number, 13);
    EXPECT_LE(long_events[0].line.size(), 4096U);
}

TEST(KernelLogUnreadable, names_dmesg_restrict_and_cap_syslog) {
    KernelLogAccess access{.error = EPERM, .path = "/dev/kmsg", .dmesg_restrict = 1, .has_cap_syslog = false};
    EXPECT_EQ(describe_unreadable_kernel_log(access),
              "kernel log not readable: dmesg_restrict is 1 and this process lacks CAP_SYSLOG (run as root)");
    access.in_container = true;
    EXPECT_TRUE(contains(describe_unreadable_kernel_log(access), "give the container CAP_SYSLOG"));
    access = KernelLogAccess{.error = ENOENT, .path = "/dev/kmsg", .in_container = true};
    EXPECT_TRUE(contains(describe_unreadable_kernel_log(access), "/dev/kmsg is absent in this container"));
    access = KernelLogAccess{.error = EPERM, .path = "/dev/kmsg", .dmesg_restrict = 0, .has_cap_syslog = true};
    EXPECT_EQ(describe_unreadable_kernel_log(access),
              "kernel log not readable: /dev/kmsg refused (Operation not permitted)");
}

// The corpus (tests/fixtures/kernel_log: real lines, each under its public source) through the
// parser and the check's per-event verdict, one golden line per event (the folder's README.md).
std::string golden_line(const KernelLogEvent& event) {
    const auto value = [](const auto& optional) { return optional ? fmt::format("{}", *optional) : std::string("-"); };
    const auto text = [](const std::string& field) { return field.empty() ? std::string("-") : field; };
    std::string kind, bucket = "-";
    const bool numbered = event.kind == KernelLogEventKind::xid || event.kind == KernelLogEventKind::sxid;
    switch (event.kind) {
        case KernelLogEventKind::xid:
            kind = "xid";
            if (const XidInfo* info = find_xid(event.number)) bucket = std::string(to_string(info->immediate));
            break;
        case KernelLogEventKind::sxid:
            kind = "sxid";
            if (const SxidInfo* info = find_sxid(event.number)) bucket = std::string(to_string(info->immediate));
            break;
        case KernelLogEventKind::gpu_identity: kind = "gpu_identity"; break;
        case KernelLogEventKind::fallen_off_bus: kind = "fallen_off_bus"; break;
        case KernelLogEventKind::gsp_timeout: kind = "gsp_timeout"; break;
        case KernelLogEventKind::rm_init_adapter_failed: kind = "rm_init_adapter_failed"; break;
        case KernelLogEventKind::persistence_deprecated: kind = "persistence_deprecated"; break;
    }
    const std::optional<Code> code = kernel_log_event_code(event);
    return fmt::format("{} mono={} xid={} pci={} pid={} name={} prev={} action={} fatal={} uuid={} bucket={} code={}",
                       kind, event.seconds ? fmt::format("{:.6f}", *event.seconds) : "-",
                       numbered ? std::to_string(event.number) : "-", text(event.pci), value(event.pid),
                       text(event.process), value(event.caused_by), value(event.recovery_action),
                       event.fatal ? (*event.fatal ? "yes" : "no") : "-", text(event.uuid), bucket,
                       code ? code_string(*code) : "-");
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

std::string corpus_log() {
    std::string log;
    for (const std::string& line : lines_of(test::fixture("kernel_log/corpus.txt")))
        if (!line.empty() && !line.starts_with('#')) log += line + "\n";
    return log;
}

TEST(KernelLogCorpus, every_line_parses_and_judges_as_its_golden_says) {
    const std::vector<KernelLogEvent> events = parse_kernel_log(corpus_log());
    const std::vector<std::string> golden = lines_of(test::fixture("kernel_log/corpus.golden"));
    std::vector<std::string> actual;
    for (const KernelLogEvent& event : events) actual.push_back(golden_line(event));
    for (std::size_t i = 0; i < std::max(actual.size(), golden.size()); ++i)
        EXPECT_EQ(i < actual.size() ? actual[i] : "(no event)", i < golden.size() ? golden[i] : "(none expected)")
            << "event " << i + 1;
    EXPECT_EQ(actual.size(), golden.size());
}

// The whole corpus as one log through the check's judge: every finding carries a code the check
// declares, names its GPU (but the NVSwitches'), and an application fault never fails the run.
TEST(KernelLogCorpus, the_judge_gives_each_gpu_finding_its_gpu) {
    KernelLogParser parser;
    parser.add_text(corpus_log());
    KernelLogReading reading;
    reading.readable = true;
    reading.source = "corpus";
    reading.events = parser.take_events();
    ResultBuilder builder;
    judge_kernel_log(reading, {}, builder);
    const CheckResult result = std::move(builder).finish("driver.kernel_log", std::nullopt);
    EXPECT_EQ(result.status, Status::fail);
    std::size_t application_faults = 0;
    for (const Finding& finding : result.findings) {
        const CatalogEntry* entry = find_catalog_entry(finding.code);
        ASSERT_NE(entry, nullptr) << finding.code;
        EXPECT_TRUE(contains(std::string(entry->raised_by), "driver.kernel_log")) << finding.code;
        if (finding.code != "CC238" && finding.code != "CC239") {
            EXPECT_FALSE(finding.gpu.empty()) << finding.message;
        }
        if (finding.code == "CC231") {
            ++application_faults;
            EXPECT_EQ(finding.status, Status::warn);
            EXPECT_TRUE(contains(finding.message, "no GPU action needed")) << finding.message;
        }
    }
    EXPECT_GE(application_faults, 5U);
}

// A crafted root: its dev/kmsg a file of records, its proc/uptime the clock.
TEST(KernelLogReader, reads_records_of_a_crafted_kmsg_with_their_ages) {
    TempDir root;
    root.write("dev/kmsg",
               "6,0,0,-;Linux version 6.1.0\n"
               "6,1200,1843300000,-;NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab\n"
               " SUBSYSTEM=pci\n"
               "4,1203,1843308145,-;" +
                   std::string(h200_xid31) + "\n");
    root.write("proc/uptime", "2023.31 4000.00\n");
    const KernelLogReading reading = read_kernel_log(KernelLogSettings{.root = root.path()});
    ASSERT_TRUE(reading.readable) << reading.unreadable;
    EXPECT_EQ(reading.source, root.path() + "/dev/kmsg");
    EXPECT_EQ(reading.lines, 4U);
    EXPECT_EQ(reading.driver_lines, 2U);
    EXPECT_FALSE(reading.wrapped);
    ASSERT_EQ(reading.events.size(), 2U);
    const std::optional<double> age = reading.age_of(reading.events[1]);
    ASSERT_TRUE(age.has_value());
    EXPECT_NEAR(*age, 180.0, 0.01);
    EXPECT_TRUE(reading.limited.empty());
}

TEST(KernelLogReader, knows_no_age_for_a_stamp_past_the_clock) {
    KernelLogReading reading;
    reading.uptime_seconds = 100;
    KernelLogEvent event;
    event.seconds = 50;
    EXPECT_EQ(reading.age_of(event), 50.0);
    event.seconds = 5000;  // a log saved on another boot
    EXPECT_FALSE(reading.age_of(event).has_value());
    event.seconds.reset();
    EXPECT_FALSE(reading.age_of(event).has_value());
}

TEST(KernelLogReader, says_when_older_lines_were_overwritten) {
    TempDir root;
    root.write("dev/kmsg", "6,50211,86400000000,-;usb 1-1: new device\n");
    const KernelLogReading reading = read_kernel_log(KernelLogSettings{.root = root.path()});
    ASSERT_TRUE(reading.readable);
    EXPECT_TRUE(reading.wrapped);
    ASSERT_TRUE(reading.first_seconds.has_value());
    EXPECT_DOUBLE_EQ(*reading.first_seconds, 86400.0);
    EXPECT_FALSE(reading.uptime_seconds.has_value());  // the root has no proc/uptime
}

TEST(KernelLogReader, says_why_when_there_is_no_log) {
    TempDir root;
    root.write("proc/sys/kernel/dmesg_restrict", "1\n");
    const KernelLogReading absent = read_kernel_log(KernelLogSettings{.root = root.path(), .container = "docker"});
    EXPECT_FALSE(absent.readable);
    EXPECT_TRUE(contains(absent.unreadable, "/dev/kmsg is absent in this container")) << absent.unreadable;
    root.write("dev/kmsg", "");
    const KernelLogReading empty = read_kernel_log(KernelLogSettings{.root = root.path()});
    EXPECT_FALSE(empty.readable);
    EXPECT_TRUE(contains(empty.unreadable, "holds no line")) << empty.unreadable;
    // Not readable by this user: only where permissions hold (not as root).
    root.write("dev/kmsg", "6,0,0,-;x\n", 0000);
    const KernelLogReading refused = read_kernel_log(KernelLogSettings{.root = root.path()});
    if (!refused.readable) {
        EXPECT_TRUE(contains(refused.unreadable, "refused")) << refused.unreadable;
    }
}

TEST(KernelLogReader, stops_at_the_size_limit) {
    TempDir root;
    std::string log;
    for (int i = 0; i < 20000; ++i)
        log += "4," + std::to_string(i) + ",1000000,-;NVRM: Xid (PCI:0000:00:06): 13, pid=1, name=x, text\n";
    root.write("dev/kmsg", log);
    const KernelLogReading reading = read_kernel_log(KernelLogSettings{.root = root.path(), .byte_limit = 65536});
    ASSERT_TRUE(reading.readable);
    EXPECT_EQ(reading.bytes, 65536U);
    EXPECT_TRUE(contains(reading.limited, "stopped after")) << reading.limited;
    EXPECT_LT(reading.events.size(), 20000U);
    EXPECT_GT(reading.events.size(), 500U);
}

TEST(KernelLogReader, reads_a_file_named_in_place_of_kmsg) {
    TempDir directory;
    const std::string path =
        directory.write("saved-dmesg.txt",
                        "[    4.100000] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04\n"
                        "[ 1843.308145] " +
                            std::string(h200_xid31) + "\n");
    const KernelLogReading reading = read_kernel_log(KernelLogSettings{.path = path});
    ASSERT_TRUE(reading.readable);
    EXPECT_EQ(reading.source, path);
    ASSERT_EQ(reading.events.size(), 1U);
    EXPECT_EQ(reading.events[0].number, 31);
    ASSERT_TRUE(reading.first_seconds.has_value());
    EXPECT_DOUBLE_EQ(*reading.first_seconds, 4.1);
}

// The real /dev/kmsg where this user may read it: records come back, bounded in time.
TEST(KernelLogReader, reads_this_machines_log_when_it_may) {
    const KernelLogReading reading = read_kernel_log(KernelLogSettings{});
    if (!reading.readable) GTEST_SKIP() << reading.unreadable;
    EXPECT_GT(reading.lines, 0U);
    EXPECT_FALSE(reading.source.empty());
    EXPECT_TRUE(reading.uptime_seconds.has_value());
}

}  // namespace
