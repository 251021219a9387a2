// The supervisor-worker protocol (isolation/protocol.cpp): each event and the job survive as text.
#include "isolation/protocol.hpp"

#include "report/result_builder.hpp"

#include <gtest/gtest.h>

namespace cudacheck {
namespace {

using namespace protocol;

CheckResult crashed_result(std::optional<int> device) {
    ResultBuilder builder;
    builder.add(Code::check_crashed, "gpu.stress crashed its process: killed by SIGSEGV (Segmentation fault)");
    builder.evidence("worker_output", "last line");
    CheckResult result = std::move(builder).finish("gpu.stress", device);
    result.duration_ms = 1234;
    return result;
}

Event round_trip(const Event& event) {
    const std::string line = encode(event);
    EXPECT_EQ(line.back(), '\n');
    EXPECT_EQ(line.find('\n'), line.size() - 1) << "one event, one line";
    const std::optional<Event> decoded = decode_event(line.substr(0, line.size() - 1));
    EXPECT_TRUE(decoded.has_value()) << line;
    return decoded.value_or(Done{});
}

TEST(Protocol, task_events_keep_their_check_and_device) {
    const Task on_gpu{"cublas.gemm", 1};
    const Task on_host{"host.os", std::nullopt};
    EXPECT_EQ(std::get<Planned>(round_trip(Planned{on_gpu})).task, on_gpu);
    EXPECT_EQ(std::get<Started>(round_trip(Started{on_host})).task, on_host);
    const Waiting waiting = std::get<Waiting>(round_trip(Waiting{on_gpu, true}));
    EXPECT_EQ(waiting.task, on_gpu);
    EXPECT_TRUE(waiting.waiting);
    EXPECT_FALSE(std::get<Waiting>(round_trip(Waiting{on_gpu, false})).waiting);
}

TEST(Protocol, waiting_event_is_spelt_as_the_worker_has_always_sent_it) {
    EXPECT_EQ(encode(Waiting{{"gpu.stress", 0}, true}),
              "{\"event\":\"waiting\",\"id\":\"gpu.stress\",\"device\":0,\"waiting\":true}\n");
}

TEST(Protocol, finished_event_carries_the_whole_result) {
    const CheckResult result = crashed_result(2);
    EXPECT_EQ(std::get<Finished>(round_trip(Finished{result})).result, result);
}

TEST(Protocol, facts_event_carries_versions_and_devices) {
    ReportFacts facts;
    facts.versions.driver = "580.159.04";
    facts.versions.nvcc = "13.0.88";
    DeviceInfo device;
    device.ordinal = 1;
    device.name = "NVIDIA H200";
    device.cc_major = 9;
    facts.devices.push_back(device);
    const ReportFacts decoded = std::get<Facts>(round_trip(Facts{facts})).facts;
    EXPECT_EQ(decoded.versions.driver, "580.159.04");
    EXPECT_EQ(decoded.versions.nvcc, "13.0.88");
    EXPECT_EQ(decoded.versions.runtime, "");
    ASSERT_EQ(decoded.devices.size(), 1u);
    EXPECT_EQ(decoded.devices[0].ordinal, 1);
    EXPECT_EQ(decoded.devices[0].name, "NVIDIA H200");
    EXPECT_EQ(decoded.devices[0].cc_major, 9);
}

TEST(Protocol, usage_error_and_done_are_events_too) {
    EXPECT_EQ(std::get<UsageError>(round_trip(UsageError{"--devices 3: no such device"})).message,
              "--devices 3: no such device");
    EXPECT_TRUE(std::holds_alternative<Done>(round_trip(Done{})));
}

TEST(Protocol, progress_event_carries_the_figure) {
    const Task on_gpu{"gpu.stress", 0};
    const Progress progress =
        std::get<Progress>(round_trip(Progress{on_gpu, ProgressFigure{12.5, 20, 812.25, "TFLOP/s", "a note"}}));
    EXPECT_EQ(progress.task, on_gpu);
    EXPECT_DOUBLE_EQ(progress.figure.elapsed_s, 12.5);
    EXPECT_DOUBLE_EQ(progress.figure.planned_s, 20);
    EXPECT_DOUBLE_EQ(progress.figure.value, 812.25);
    EXPECT_EQ(progress.figure.unit, "TFLOP/s");
    EXPECT_EQ(progress.figure.note, "a note");
    EXPECT_EQ(encode(Progress{{"gpu.memtest", std::nullopt}, ProgressFigure{1, 0, 2, "GB/s", ""}}),
              "{\"event\":\"progress\",\"id\":\"gpu.memtest\",\"device\":null,\"elapsed\":1.0,\"planned\":0.0,"
              "\"value\":2.0,"
              "\"unit\":\"GB/s\",\"note\":\"\"}\n");
}

TEST(Protocol, an_event_this_build_does_not_know_is_no_event) {
    // An older or newer worker's event, or one with a field missing: the reader skips it.
    EXPECT_FALSE(decode_event(R"({"event":"heartbeat","id":"gpu.stress","device":0})").has_value());
    EXPECT_FALSE(decode_event(R"({"event":"progress","id":"gpu.stress","device":0,"elapsed":1})").has_value());
    EXPECT_FALSE(
        decode_event(
            R"({"event":"progress","id":"gpu.stress","device":0,"elapsed":null,"planned":0,"value":0,"unit":"","note":""})")
            .has_value());
    EXPECT_TRUE(decode_event(R"({"event":"done","extra":"ignored"})").has_value());
}

TEST(Protocol, decode_event_refuses_lines_that_are_not_whole_events) {
    for (const char* line :
         {"", "garbage", "[1,2]", "{}", "{\"event\":\"exploded\"}", "{\"event\":\"started\",\"id\":\"host.os\"}",
          "{\"event\":\"waiting\",\"id\":\"host.os\",\"device\":null}", "{\"event\":\"finished\",\"result\":{}}",
          "{\"event\":\"started\",\"id\":\"host.os\",\"device\":nul"})
        EXPECT_FALSE(decode_event(line).has_value()) << line;
}

TEST(Protocol, job_survives_encoding) {
    Job job;
    job.parent_pid = 4242;
    job.options.level = Level::full;
    job.options.devices = {0, 2};
    job.options.verbose = true;
    job.options.stress_seconds = 7.5;
    job.options.profile = Profile::ci;
    job.checks = {"host.os", "gpu.stress"};
    job.decided = {crashed_result(0)};
    job.one_at_a_time = true;
    job.failed_actions = {{{actions::Kind::load, "/x/libcublas.so.13"},
                           "killed the check process (killed by SIGBUS (Bus error))",
                           false},
                          {{actions::Kind::driver_call, "cuInit"},
                           "did not finish within 2 s (--timeout) and its process was killed",
                           true}};
    const std::optional<Job> decoded = decode_job(encode(job), 4242);
    ASSERT_TRUE(decoded.has_value());
    EXPECT_EQ(decoded->options.level, Level::full);
    EXPECT_EQ(decoded->options.devices, (std::vector<int>{0, 2}));
    EXPECT_TRUE(decoded->options.verbose);
    EXPECT_EQ(decoded->options.stress_seconds, 7.5);
    EXPECT_EQ(decoded->options.profile, Profile::ci);
    EXPECT_EQ(decoded->checks, job.checks);
    EXPECT_EQ(decoded->decided, job.decided);
    EXPECT_TRUE(decoded->one_at_a_time);
    EXPECT_EQ(decoded->failed_actions, job.failed_actions);
}

TEST(Protocol, steps_are_announced_with_their_kind_and_subject) {
    const Begun begun = std::get<Begun>(round_trip(Begun{7, {actions::Kind::context, "1"}}));
    EXPECT_EQ(begun.id, 7u);
    EXPECT_EQ(begun.action, (actions::Action{actions::Kind::context, "1"}));
    EXPECT_EQ(std::get<Ended>(round_trip(Ended{7})).id, 7u);
    EXPECT_FALSE(decode_event(R"({"event":"begun","action":1,"kind":"teleport","subject":"x"})").has_value())
        << "an unknown kind";
}

TEST(Protocol, decode_job_refuses_a_job_from_another_parent_or_not_a_job) {
    Job job;
    job.parent_pid = 4242;
    EXPECT_FALSE(decode_job(encode(job), 4243).has_value());
    EXPECT_FALSE(decode_job("not json", 4242).has_value());
    EXPECT_FALSE(decode_job("[]", 4242).has_value());
}

}  // namespace
}  // namespace cudacheck
