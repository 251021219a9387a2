// driver.kernel_log (checks/driver_kernel_log.cpp): the judge on events parsed from real driver
// lines, NVML's recovery action per GPU, and the binary end to end on a kernel-log fixture.
#include "checks/driver_kernel_log.hpp"
#include "cuda/xid_catalog.hpp"
#include "report/redact.hpp"
#include "support/test_support.hpp"
#include "util/headline.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>

namespace cudacheck {
namespace {

using test::contains;

constexpr std::string_view h200_identity =
    "6,1200,1843300000,-;NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab\n";
// The Xid 31 the project's GPU machine logged (1 x H200, driver 580.159.04) after a kernel wrote
// through a wild pointer.
constexpr std::string_view h200_xid31 =
    "4,1203,1843308145,-;NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob, channel 0x0000000a, intr 00000000. "
    "MMU Fault: ENGINE GRAPHICS GPC1 GPCCLIENT_T1_8 faulted @ 0x83a4_5de00000. Fault is of type FAULT_PDE "
    "ACCESS_TYPE_VIRT_WRITE\n";
// leptonai/gpud's xid README (a context-switch timeout), with a dmesg stamp.
constexpr std::string_view xid109 =
    "[ 9000.000000] NVRM: Xid (PCI:0000:3b:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, errorString CTX "
    "SWITCH TIMEOUT, Info 0x58005\n";

KernelLogReading reading_of(std::string_view text, double uptime) {
    KernelLogReading reading;
    reading.readable = true;
    reading.source = "/dev/kmsg";
    reading.uptime_seconds = uptime;
    KernelLogParser parser;
    parser.add_text(text);
    reading.lines = parser.lines();
    reading.driver_lines = parser.driver_lines();
    reading.events = parser.take_events();
    return reading;
}

CheckResult judge(const KernelLogReading& reading, const std::vector<KernelLogGpu>& gpus = {}) {
    ResultBuilder builder;
    judge_kernel_log(reading, gpus, builder);
    return std::move(builder).finish("driver.kernel_log", std::nullopt);
}

const Finding* finding(const CheckResult& result, std::string_view code) {
    const auto found = std::find_if(result.findings.begin(), result.findings.end(),
                                    [&](const Finding& candidate) { return candidate.code == code; });
    return found == result.findings.end() ? nullptr : &*found;
}

std::string evidence_text(const CheckResult& result) {
    std::string text;
    for (const Evidence& item : result.evidence) text += item.key + " = " + item.value + "\n";
    return text;
}

const KernelLogGpu gpu0{.nvml_index = 0,
                        .uuid = "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                        .pci_bus_id = "00000000:3B:00.0"};

TEST(KernelLogJudge, reports_an_application_fault_as_the_named_processs_bug) {
    const CheckResult result =
        judge(reading_of(std::string(h200_identity) + std::string(h200_xid31), 1843.308145 + 180));
    EXPECT_EQ(result.status, Status::warn);
    ASSERT_EQ(result.findings.size(), 1U);
    const Finding& fault = result.findings[0];
    EXPECT_EQ(fault.code, "CC231");
    EXPECT_EQ(fault.remedy, Remedy::restart_app);
    // The headline names the verdict and the process; the whole account is evidence.
    EXPECT_EQ(fault.message,
              "Xid 31 on GPU 0000:00:06.0: an application fault of oob (pid 4889) 3 min ago — no GPU action needed");
    EXPECT_TRUE(contains(evidence_text(result),
                         "CC231 xid 31 0000:00:06.0 account = Xid 31 (GPU memory page fault) on GPU 0000:00:06.0: "
                         "process oob (pid 4889) wrote through an invalid address 3 min ago — an application fault, "
                         "no GPU action needed\n"))
        << evidence_text(result);
    EXPECT_EQ(fault.gpu, "GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab");  // the driver's own identity line
    EXPECT_TRUE(contains(fault.remediation, "compute-sanitizer"));
    // The raw line is the evidence.
    EXPECT_TRUE(contains(evidence_text(result), "3 min ago: NVRM: Xid (PCI:0000:00:06): 31, pid=4889, name=oob"));
}

TEST(KernelLogJudge, fails_a_reset_gpu_xid_with_that_remedy_and_names_the_gpu_by_nvml) {
    const CheckResult result = judge(reading_of(xid109, 9000 + 7200), {gpu0});
    EXPECT_EQ(result.status, Status::fail);
    const Finding* reset = finding(result, "CC233");
    ASSERT_NE(reset, nullptr) << evidence_text(result);
    EXPECT_EQ(reset->remedy, Remedy::reset_gpu);
    EXPECT_EQ(reset->gpu, gpu0.uuid);
    EXPECT_TRUE(contains(reset->message, "Xid 109 on GPU 0 2 h ago: NVIDIA's Xid catalog says RESET_GPU"))
        << reset->message;
    EXPECT_TRUE(contains(evidence_text(result),
                         "account = Xid 109 (Context Switch Timeout Error) on GPU 0 (0000:3b:00.0) 2 h ago, process "
                         "pt_main_thread (pid 1797828): NVIDIA's Xid catalog says RESET_GPU"))
        << evidence_text(result);
    EXPECT_TRUE(contains(reset->remediation, "nvidia-smi -r -i 0000:3b:00.0")) << reset->remediation;
}

TEST(KernelLogJudge, reports_a_gpu_action_nvml_no_longer_asks_for_as_resolved) {
    KernelLogGpu recovered = gpu0;
    recovered.recovery_action = 0;
    const CheckResult result = judge(reading_of(xid109, 9000 + 7200), {recovered});
    EXPECT_EQ(result.status, Status::warn);
    ASSERT_EQ(result.findings.size(), 1U);
    EXPECT_EQ(result.findings[0].code, "CC243");
    EXPECT_EQ(result.findings[0].remedy, Remedy::none);
    EXPECT_TRUE(contains(result.findings[0].message, "; NVML: no recovery action pending now"))
        << result.findings[0].message;
    EXPECT_TRUE(contains(evidence_text(result), "; NVML reports no recovery action pending for this GPU now\n"))
        << evidence_text(result);
    // A pending action leaves the finding as it was (device.health reports the action itself).
    recovered.recovery_action = 1;
    EXPECT_EQ(judge(reading_of(xid109, 16200), {recovered}).findings[0].code, "CC233");
}

TEST(KernelLogJudge, skips_with_the_reason_when_the_log_is_unreadable) {
    KernelLogReading reading;
    reading.unreadable = "kernel log not readable: dmesg_restrict is 1 and this process lacks CAP_SYSLOG (run as root)";
    const CheckResult result = judge(reading);
    EXPECT_EQ(result.status, Status::skip);
    EXPECT_EQ(result.skip_reason, reading.unreadable);
}

TEST(KernelLogJudge, collapses_one_xid_on_one_gpu_into_one_finding_with_its_count) {
    // leptonai/gpud's README: three Xid 13 of one fault, then stamps 60 s apart.
    const std::string log =
        "[  100.000000] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Warp Exception "
        "on (GPC 7, TPC 7, SM 0): Illegal Instruction Parameter\n"
        "[  160.000000] NVRM: Xid (PCI:0000:cb:00): 13, pid='<unknown>', name=<unknown>, Graphics SM Global Exception "
        "on (GPC 7, TPC 7, SM 0): Multiple Warp Errors\n"
        "[  220.000000] NVRM: Xid (PCI:0000:cb:00): 13, pid=77, name=python, Graphics Exception: ESR "
        "0x57c730=0xc04000b\n";
    const CheckResult result = judge(reading_of(log, 820));
    ASSERT_EQ(result.findings.size(), 1U);
    EXPECT_EQ(result.findings[0].code, "CC231");
    EXPECT_EQ(result.findings[0].message,
              "Xid 13 on GPU 0000:cb:00.0: an application fault of python (pid 77) 3 times, last 10 min ago — no GPU "
              "action needed");
    // The account: the process, what it did, and the oldest of the three.
    EXPECT_TRUE(contains(evidence_text(result),
                         "account = Xid 13 (Graphics Engine Exception) on GPU 0000:cb:00.0: process python (pid 77) "
                         "raised a graphics engine exception (an out-of-range access or illegal instruction) 3 times, "
                         "from 12 min to 10 min ago — an application fault, no GPU action needed\n"))
        << evidence_text(result);
    EXPECT_EQ(result.findings[0].gpu, "00000000:CB:00.0");  // no UUID known: NVML's spelling of the address
    // The count as a labelled figure.
    ASSERT_EQ(result.metrics.size(), 1U);
    EXPECT_EQ(result.metrics[0].family, "xid_events");
    EXPECT_DOUBLE_EQ(result.metrics[0].value, 3);
    ASSERT_NE(result.metrics[0].label("xid"), nullptr);
    EXPECT_EQ(*result.metrics[0].label("xid"), "13");
    ASSERT_NE(result.metrics[0].label("gpu"), nullptr);
    EXPECT_EQ(*result.metrics[0].label("gpu"), "0000:cb:00.0");
}

TEST(KernelLogJudge, joins_xid_79_and_the_fallen_off_the_bus_line_into_one_reboot) {
    const std::string log =
        "[  500.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=9962, name=python, GPU has fallen off "
        "the bus.\n"
        "[  500.000100] NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
        "[  500.000200] NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 "
        "(None) to 0x2 (Node Reboot Required)\n";
    const CheckResult result = judge(reading_of(log, 600), {gpu0});
    EXPECT_EQ(result.status, Status::fail);
    const Finding* fallen = finding(result, "CC240");
    ASSERT_NE(fallen, nullptr);
    EXPECT_EQ(fallen->remedy, Remedy::reboot);
    EXPECT_TRUE(contains(fallen->message, "GPU 0 (0000:3b:00.0) fell off the bus 2 times")) << fallen->message;
    const Finding* action = finding(result, "CC234");
    ASSERT_NE(action, nullptr);
    EXPECT_TRUE(contains(action->message, "the driver asks for a node reboot")) << action->message;
}

TEST(KernelLogJudge, follows_the_latest_xid_154) {
    const std::string log =
        "[  10.0] NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action changed from 0x0 (None) to "
        "0x3 (Drain P2P)\n";
    const CheckResult drain = judge(reading_of(log, 100));
    ASSERT_EQ(drain.findings.size(), 1U);
    EXPECT_EQ(drain.findings[0].code, "CC233");
    EXPECT_EQ(drain.findings[0].remedy, Remedy::drain_p2p);
    const CheckResult cleared = judge(reading_of(log + "[  20.0] NVRM: Xid (PCI:0000:3b:00): 154, GPU recovery action "
                                                       "changed from 0x3 (Drain P2P) to 0x0 "
                                                       "(None)\n",
                                                 100));
    EXPECT_TRUE(cleared.findings.empty());
    EXPECT_EQ(cleared.status, Status::pass);
}

TEST(KernelLogJudge, folds_an_xid_caused_by_another_into_that_one) {
    // NVIDIA/open-gpu-kernel-modules#1150, after a fatal NVLink NETIR error (leptonai/gpud#1160).
    const std::string log =
        "[  10.0] NVRM: Xid (PCI:0000:dc:00): 149, NETIR_LINK_EVT Fatal XC0 i0 Link 00 (0x026001c6 "
        "0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)\n"
        "[  11.0] kernel: NVRM: Xid (PCI:0000:dc:00): 45, pid=1818990, name=python3, Ch 00000001 "
        "caused by previous Xid 149\n";
    const CheckResult result = judge(reading_of(log, 100));
    ASSERT_EQ(result.findings.size(), 1U);
    EXPECT_EQ(result.findings[0].code, "CC233");
    EXPECT_TRUE(contains(result.findings[0].message, "Xid 149")) << result.findings[0].message;
    EXPECT_TRUE(contains(evidence_text(result), "xid 45 0000:dc:00.0 = not a finding")) << evidence_text(result);
}

TEST(KernelLogJudge, judges_nvswitch_sxids_by_their_fatality) {
    const std::string log =
        "[  196.919432] nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): 12028, Non-fatal, Link 46 "
        "egress non-posted PRIV error (First)\n"
        "[  197.0] nvidia-nvswitch0: SXid (PCI:0000:88:00.0): 20034, Fatal, Link 30 LTSSM Fault Up\n";
    const CheckResult result = judge(reading_of(log, 300));
    const Finding* fatal = finding(result, "CC238");
    const Finding* nonfatal = finding(result, "CC239");
    ASSERT_NE(fatal, nullptr);
    ASSERT_NE(nonfatal, nullptr);
    EXPECT_TRUE(contains(fatal->message, "NVSwitch 0000:88:00.0")) << fatal->message;
    EXPECT_TRUE(fatal->gpu.empty());  // a switch, not a GPU
    EXPECT_EQ(result.status, Status::fail);
}

TEST(KernelLogJudge, reports_an_xid_the_catalog_lacks_and_the_other_nvrm_faults) {
    const std::string log =
        "[  10.0] NVRM: Xid (PCI:0000:3b:00): 999, something new\n"
        "[  11.0] NVRM: _kgspLogXid119: ***** GSP Timeout *****\n"
        "[  11.1] NVRM: Xid (PCI:0000:01:00): 119, Timeout after 6s of waiting for RPC response "
        "from GPU0 GSP! Expected function 76 (GSP_RM_CONTROL) sequence 1321\n"
        "[  12.0] NVRM: GPU 0000:02:00.0: RmInitAdapter failed! (0x24:0x65:1185)\n";
    const CheckResult result = judge(reading_of(log, 100));
    ASSERT_NE(finding(result, "CC237"), nullptr);
    const Finding* gsp = finding(result, "CC241");
    ASSERT_NE(gsp, nullptr);
    EXPECT_TRUE(contains(gsp->message, "0000:01:00.0")) << gsp->message;
    EXPECT_TRUE(contains(gsp->message, "2 times")) << gsp->message;  // the banner joined its Xid
    ASSERT_NE(finding(result, "CC242"), nullptr);
    EXPECT_EQ(result.findings.size(), 3U);
}

TEST(KernelLogJudge, passes_a_clean_log_and_keeps_the_persistence_note_as_evidence) {
    const CheckResult result =
        judge(reading_of("6,870,9123456,-;NVRM: Persistence mode is deprecated and will be removed in a future "
                         "release. Please use "
                         "nvidia-persistenced instead.\n6,871,9123500,-;usb 1-1: new device\n",
                         100));
    EXPECT_EQ(result.status, Status::pass);
    EXPECT_TRUE(result.findings.empty());
    EXPECT_TRUE(contains(evidence_text(result), "legacy persistence mode is deprecated"));
    EXPECT_TRUE(contains(result.message, "no NVIDIA driver fault")) << result.message;
}

// Every Xid of the catalog and every SXid, at their longest (three processes with 15-character names
// and 7-digit pids, a cause, ages a day apart, a GPU NVML does not list or one whose action NVML says
// is done): each finding's message is a headline, and the account it shortens is the evidence.
TEST(KernelLogJudge, every_finding_is_a_headline_with_its_whole_account_in_the_evidence) {
    std::string log;
    std::vector<int> numbers{9999};  // and one the catalog lacks
    for (const XidInfo& info : xid_catalog()) numbers.push_back(info.xid);
    for (const int number : numbers) {
        const std::string rest = number == 154 ? "GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)"
                                               : "Fatal, ACCESS_TYPE_VIRT_ATOMIC, caused by previous Xid 149";
        for (const char* name : {"pt_main_thread1", "pt_main_thread2", "pt_main_thread3"})
            for (const char* stamp : {"100.0", "90000.0"})
                log += fmt::format("[ {}] NVRM: Xid (PCI:0000:3b:00): {}, pid=1797828, name={}, {}\n", stamp, number,
                                   name, rest);
    }
    for (const SxidInfo& info : sxid_catalog())
        log += fmt::format("[ 100.0] nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): {}, Fatal, Link 46 error\n", info.sxid);
    log += "[ 100.0] NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x24:0x65:1185)\n";
    KernelLogGpu done = gpu0;
    done.recovery_action = 0;
    for (const std::vector<KernelLogGpu>& gpus : {std::vector<KernelLogGpu>{}, std::vector<KernelLogGpu>{done}}) {
        const CheckResult result = judge(reading_of(log, 190000), gpus);
        EXPECT_GT(result.findings.size(), 40U);
        const std::string evidence = evidence_text(result);
        for (const Finding& item : result.findings) {
            EXPECT_LE(sys::characters(item.message), sys::max_headline) << item.code << ": " << item.message;
            EXPECT_FALSE(contains(item.message, "…")) << "shortened by its own rules, not cut: " << item.message;
            // Every Xid's account here is longer than a headline: it is in the evidence, whole.
            if (!item.message.starts_with("Xid ")) continue;
            const std::string xid = item.message.substr(0, item.message.find(" on "));  // "Xid 31"
            EXPECT_TRUE(contains(evidence, " account = " + xid + " ")) << item.message << "\n" << evidence;
        }
    }
}

TEST(KernelLogJudge, formats_ages) {
    EXPECT_EQ(format_age(45), "45 s");
    EXPECT_EQ(format_age(180), "3 min");
    EXPECT_EQ(format_age(7200), "2 h");
    EXPECT_EQ(format_age(4 * 86400), "4 d");
    EXPECT_EQ(format_age(-1), "an unknown time");
}

// --redact: the GPU's UUID and serial number in kernel-log lines and in Finding::gpu do not survive.
TEST(KernelLogJudge, leaves_no_uuid_or_serial_after_redaction) {
    CheckResult result = judge(reading_of(std::string(h200_identity) + std::string(h200_xid31), 1843.308145 + 180));
    result.evidence.push_back(Evidence{.key = "driver line", .value = "NVRM: GPU Board Serial Number: 1650123456789"});
    result.evidence.push_back(
        Evidence{.key = "identity", .value = "NVRM: GPU at PCI:0000:00:06: GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab"});
    Report report;
    report.checks.push_back(result);
    redact(report, RedactionTargets{});
    const std::string text = [&] {
        std::string all;
        for (const Evidence& item : report.checks[0].evidence) all += item.value + "\n";
        for (const Finding& item : report.checks[0].findings) all += item.message + item.gpu + "\n";
        return all;
    }();
    EXPECT_FALSE(contains(text, "1650123456789")) << text;
    EXPECT_FALSE(contains(text, "2a36941f")) << text;
    EXPECT_TRUE(contains(text, "Serial Number: [redacted-serial-")) << text;
    EXPECT_TRUE(contains(report.checks[0].findings[0].gpu, "GPU-redacted-")) << report.checks[0].findings[0].gpu;
}

// The binary, its kernel log a fixture file (CUDACHECK_KERNEL_LOG): the H200's Xid 31 as a finding
// of the named process, in JSON, with its GPU and remedy.
TEST(KernelLogCheck, reports_the_fixtures_xid_through_the_binary) {
    test::TempDir directory;
    const std::string log = directory.write("kmsg", std::string(h200_identity) + std::string(h200_xid31));
    const std::string report_path = directory.path() + "/report.json";
    const test::BinaryRun run =
        test::run_cudacheck({"--only", "driver.kernel_log", "-o", report_path, "-q"}, {{"CUDACHECK_KERNEL_LOG", log}});
    EXPECT_EQ(run.exit_status, 0) << "an application fault is a warning: " << run.output;
    const nlohmann::json report = nlohmann::json::parse(test::read_text(report_path));
    const nlohmann::json* check = test::find_check(report, "driver.kernel_log");
    ASSERT_NE(check, nullptr) << report.dump();
    EXPECT_EQ((*check)["status"], "warn") << check->dump();
    EXPECT_EQ((*check)["code"], "CC231");
    const nlohmann::json& found = (*check)["findings"].at(0);
    EXPECT_TRUE(contains(found["message"].get<std::string>(), "oob (pid 4889)")) << found.dump();
    EXPECT_EQ(found["gpu"], "GPU-2a36941f-5b2d-4c6e-8f1a-0123456789ab");
    EXPECT_EQ(found["remedy"], "restart_app");
}

}  // namespace
}  // namespace cudacheck
