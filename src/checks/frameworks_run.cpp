// frameworks.run (--level full): the proof of frameworks.builds' predictions. For each
// PyTorch, JAX and CuPy with a CUDA build, the environment's own interpreter runs the framework's
// smallest GPU work (torch: a matmul and a cuDNN convolution; JAX: a jitted reduction on the GPU
// backend; CuPy: a reduction and an NVRTC-compiled elementwise kernel), each result compared with
// the CPU's, and prints what the framework says of itself: its versions, its devices and the CUDA
// libraries mapped into its process (/proc/self/maps). The children run side by side with a time
// limit, inside the supervised worker; a result that differs from the prediction is a finding.
#include "checks/frameworks_run.hpp"

#include "engine/check.hpp"
#include "engine/registry.hpp"
#include "gpu/cuda_runtime.hpp"
#include "probes/probes.hpp"
#include "util/activity.hpp"
#include "util/headline.hpp"
#include "util/json_read.hpp"
#include "util/path.hpp"
#include "util/process.hpp"
#include "util/system.hpp"
#include "util/trace.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <future>
#include <numeric>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cudacheck {

namespace {

constexpr std::string_view self_report_marker = "CUDACHECK_SELF_REPORT ";

// Around each framework's body: the mapped libraries and the one JSON line, whatever happened.
constexpr std::string_view script_prelude = R"PY(
import json, os, sys
R = {"ok": False, "checks": [], "devices": [], "arch_list": []}
def mapped():
    names = ("libcudart", "libcublas", "libcudnn", "libnccl", "libnvrtc", "libcufft", "libcurand", "libcusparse", "libcusolver", "libnvJitLink")
    seen = set()
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                parts = line.split()
                if len(parts) >= 6 and parts[5].startswith("/") and os.path.basename(parts[5]).startswith(names):
                    seen.add(os.path.realpath(parts[5]))
    except OSError:
        pass
    return sorted(seen)
try:
)PY";

constexpr std::string_view script_epilogue = R"PY(
    R["ok"] = True
except BaseException as error:
    R["error"] = (type(error).__name__ + ": " + str(error)).strip()[:2000]
R["mapped"] = mapped()
print("CUDACHECK_SELF_REPORT " + json.dumps(R), flush=True)
)PY";

// Indented one level, inside the prelude's try.
constexpr std::string_view torch_body = R"PY(
    import torch
    R["version"] = torch.__version__
    R["cuda"] = torch.version.cuda
    R["arch_list"] = torch.cuda.get_arch_list()
    R["devices"] = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    g = torch.Generator().manual_seed(17)
    a, b = torch.randn(256, 256, generator=g), torch.randn(256, 256, generator=g)
    c = (a.cuda() @ b.cuda()).cpu().double()
    reference = a.double() @ b.double()
    if not torch.allclose(c, reference, rtol=1e-2, atol=5e-2):
        raise AssertionError("the GPU matmul differs from the CPU's by %g" % (c - reference).abs().max().item())
    R["checks"].append("matmul")
    x, w = torch.randn(2, 3, 16, 16, generator=g), torch.randn(4, 3, 3, 3, generator=g)
    y = torch.nn.functional.conv2d(x.cuda(), w.cuda()).cpu().double()
    reference = torch.nn.functional.conv2d(x.double(), w.double())
    if not torch.allclose(y, reference, rtol=1e-2, atol=5e-2):
        raise AssertionError("the GPU convolution differs from the CPU's by %g" % (y - reference).abs().max().item())
    v = torch.backends.cudnn.version()
    if v:
        R["cudnn"] = "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
    R["checks"].append("conv2d (cuDNN)" if v else "conv2d")
)PY";

constexpr std::string_view jax_body = R"PY(
    import jax, jax.numpy as jnp
    R["version"] = jax.__version__
    R["devices"] = [str(d) for d in jax.devices()]
    if jax.default_backend() != "gpu":
        raise RuntimeError("JAX runs on its %s backend, not the GPU" % jax.default_backend())
    try:
        from jax._src.lib import cuda_versions
        v = cuda_versions.cudnn_get_version()
        R["cudnn"] = "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
        v = cuda_versions.cuda_runtime_get_version()
        R["cuda"] = "%d.%d" % (v // 1000, (v % 1000) // 10)
    except Exception:
        pass
    total = float(jax.jit(lambda v: (v * 2.0 + 1.0).sum())(jnp.arange(1000, dtype=jnp.float32)))
    if total != 1e6:
        raise AssertionError("the jitted sum is %r, not 1000000" % total)
    R["checks"].append("jit reduction")
)PY";

constexpr std::string_view cupy_body = R"PY(
    import cupy
    R["version"] = cupy.__version__
    v = cupy.cuda.runtime.runtimeGetVersion()
    R["cuda"] = "%d.%d" % (v // 1000, (v % 1000) // 10)
    R["devices"] = [cupy.cuda.runtime.getDeviceProperties(i)["name"].decode() for i in range(cupy.cuda.runtime.getDeviceCount())]
    a = cupy.arange(1000, dtype=cupy.float32)
    total = float(a.sum())
    if total != 499500.0:
        raise AssertionError("the sum is %r, not 499500" % total)
    R["checks"].append("reduction")
    b = cupy.ElementwiseKernel("float32 x", "float32 y", "y = x * 2 + 1", "cudacheck_affine")(a)
    if float(b[999]) != 1999.0 or float(b.sum()) != 1e6:
        raise AssertionError("the elementwise kernel computed wrong values")
    R["checks"].append("elementwise kernel (NVRTC)")
)PY";

std::vector<std::string> strings_of(const ordered_json& document, std::string_view key) {
    std::vector<std::string> values;
    const auto found = document.find(key);
    if (found == document.end() || !found->is_array()) return values;
    for (const ordered_json& value : *found)
        if (value.is_string()) values.push_back(value.get<std::string>());
    return values;
}

std::optional<std::string> string_of(const ordered_json& document, std::string_view key) {
    const auto found = document.find(key);
    if (found == document.end() || !found->is_string()) return std::nullopt;
    return found->get<std::string>();
}

// The library family of a mapped file, by its name: "libcudnn_graph.so.9" is cuDNN graph's,
// "libcublasLt.so.13.1.0.3" cuBLASLt's.
const LibraryFamily* family_of_file(std::string_view file_name) {
    const LibraryFamily* best = nullptr;
    for (const LibraryFamily& family : library_families()) {
        const std::string prefix = std::string(family.stem) + ".so";
        if (sys::starts_with(file_name, prefix) && (best == nullptr || family.stem.size() > best->stem.size()))
            best = &family;
    }
    return best;
}

}  // namespace

std::string tail_lines(const std::string& output, std::size_t lines) {
    std::size_t end = output.size();
    while (end > 0 && (output[end - 1] == '\n' || output[end - 1] == ' ')) --end;
    std::size_t start = end;
    for (std::size_t n = 0; n < lines && start > 0; ++n) {
        const std::size_t newline = output.rfind('\n', start - 1);
        start = newline == std::string::npos ? 0 : newline;
    }
    std::string tail(sys::trim(std::string_view(output).substr(start, end - start)));
    for (std::size_t at = tail.find('\n'); at != std::string::npos; at = tail.find('\n', at + 3))
        tail.replace(at, 1, " | ");
    return tail;
}

std::string framework_probe_script(std::string_view framework) {
    std::string_view body;
    if (framework == "PyTorch") body = torch_body;
    else if (framework == "JAX") body = jax_body;
    else if (framework == "CuPy") body = cupy_body;
    else return {};
    return fmt::format("{}{}{}", script_prelude, body, script_epilogue);
}

Expected<FrameworkSelfReport> parse_self_report(std::string_view output) {
    const std::size_t marker = output.rfind(self_report_marker);
    if (marker == std::string_view::npos) return Error{"it printed no report line"};
    std::string_view line = output.substr(marker + self_report_marker.size());
    line = line.substr(0, line.find('\n'));
    const Expected<ordered_json> document = parse_json_text(line, "the report line");
    if (!document) return document.error();
    if (!document->is_object()) return Error{"the report line is not a JSON object"};
    FrameworkSelfReport report;
    report.ok = document->value("ok", false);
    report.error = string_of(*document, "error").value_or("");
    report.version = string_of(*document, "version").value_or("");
    report.cuda = string_of(*document, "cuda");
    report.cudnn = string_of(*document, "cudnn");
    report.arch_list = strings_of(*document, "arch_list");
    report.devices = strings_of(*document, "devices");
    report.mapped = strings_of(*document, "mapped");
    report.checks = strings_of(*document, "checks");
    return report;
}

bool FrameworkOutput::add(std::string_view chunk) {
    if (bytes_ >= output_limit) return false;
    chunk = chunk.substr(0, output_limit - bytes_);
    bytes_ += chunk.size();
    // The tail, trimmed in halves so that keeping it stays linear in what is read.
    tail_.append(chunk);
    if (tail_.size() > 2 * tail_limit) tail_.erase(0, tail_.size() - tail_limit);
    while (!chunk.empty()) {
        const std::size_t newline = chunk.find('\n');
        const std::string_view piece = chunk.substr(0, newline);
        // The marker may straddle two reads: the last marker-length bytes of the line before are
        // searched with the new piece (line_ holds them while no marker has been seen).
        std::string window =
            line_marked_ ? line_.substr(line_.size() - std::min(line_.size(), self_report_marker.size() - 1)) : line_;
        window.append(piece);
        if (const std::size_t marker = window.rfind(self_report_marker); marker != std::string::npos) {
            // The last marker of a line is its report, as print() writes it after whatever a
            // thread left on that line without a newline.
            line_ = window.substr(marker, report_line_limit);
            line_cut_ = window.size() - marker > report_line_limit;
            line_marked_ = true;
        } else if (line_marked_) {
            const std::size_t room = report_line_limit - std::min(report_line_limit, line_.size());
            line_.append(piece.substr(0, room));
            line_cut_ = line_cut_ || piece.size() > room;
        } else {
            line_ = window.substr(window.size() - std::min(window.size(), self_report_marker.size() - 1));
        }
        if (newline == std::string_view::npos) break;
        end_line();
        chunk.remove_prefix(newline + 1);
    }
    return bytes_ < output_limit;
}

void FrameworkOutput::end_line() {
    if (line_marked_) report_line_ = line_cut_ ? std::string(self_report_marker) + "(cut)" : line_;
    line_.clear();
    line_marked_ = false;
    line_cut_ = false;
}

void FrameworkOutput::finish() { end_line(); }

void judge_framework_run(const std::string& subject, const FrameworkFacts& framework,
                         const FrameworkRunOutcome& outcome, ResultBuilder& result) {
    const FrameworkBuild& build = framework.build;
    const std::string name = fmt::format("{} {}", build.framework, build.version);
    // A message is a headline: the whole text (the framework's own error, its output) is evidence.
    const auto add = [&](Code code, std::string message, std::string remediation) {
        if (message.size() > sys::max_headline) {
            result.evidence(fmt::format("{} {}", code_string(code), subject), message);
            message = sys::clip(message, sys::max_headline);
        }
        Finding finding = make_finding(code, std::move(message), std::move(remediation));
        finding.subject = subject;
        result.add(std::move(finding));
    };
    if (!outcome.started || outcome.timed_out || !outcome.report) {
        const std::string what = !outcome.started    ? "could not be started"
                                 : outcome.timed_out ? fmt::format("did not finish in {:.0f} s", outcome.seconds)
                                 : !outcome.report_error.empty()
                                     ? fmt::format("exited with status {} after printing {} bytes, and {}",
                                                   outcome.exit_status, outcome.output_bytes, outcome.report_error)
                                     : fmt::format("exited with status {} before reporting", outcome.exit_status);
        if (!outcome.output_tail.empty()) result.evidence(subject + " output", outcome.output_tail);
        if (!outcome.report_error.empty()) result.evidence(subject + " report", outcome.report_error);
        add(Code::framework_run_failed,
            !outcome.started || outcome.timed_out || outcome.report_error.empty()
                ? fmt::format("{}'s own GPU test {}", name, what)
                : fmt::format("{}'s own GPU test exited with status {}, and its report could not be read", name,
                              outcome.exit_status),
            "Run the framework's import in that interpreter to see its error; the frameworks.builds findings name the "
            "usual causes.");
        return;
    }
    const FrameworkSelfReport& report = *outcome.report;
    result.evidence(subject + " said",
                    fmt::format("version {}, CUDA {}, cuDNN {}, devices [{}], ran [{}]", report.version,
                                report.cuda.value_or("?"), report.cudnn.value_or("-"), fmt::join(report.devices, ", "),
                                fmt::join(report.checks, ", ")));
    if (!report.ok) result.evidence(subject + " error", report.error);
    if (!report.ok)
        add(Code::framework_run_failed,
            fmt::format("{} failed its own GPU test after [{}]", name, fmt::join(report.checks, ", ")),
            "The frameworks.builds findings about it name the likely cause; if there are none, reinstall the "
            "framework's CUDA build.");

    // The prediction, fact by fact.
    std::vector<std::string> differences;
    if (build.framework == "PyTorch" && build.cuda && report.cuda && *report.cuda != *build.cuda)
        differences.push_back(
            fmt::format("torch.version.cuda is {}, torch/version.py says {}", *report.cuda, *build.cuda));
    if (build.framework == "CuPy" && build.cuda_major && report.cuda &&
        report.cuda->substr(0, report.cuda->find('.')) != std::to_string(*build.cuda_major))
        differences.push_back(fmt::format("its runtime is CUDA {}, the package {} is for CUDA {}", *report.cuda,
                                          build.distribution, *build.cuda_major));
    // cudnnGetVersion answers from the sub-libraries: with a mixed install (CC626) the framework
    // reports the version of the parts, not of the shim. Any part's version is the prediction.
    if (const FrameworkLibrary* cudnn = framework.library("cuDNN"); cudnn != nullptr && report.cudnn) {
        const bool predicted =
            std::any_of(framework.libraries.begin(), framework.libraries.end(), [&](const FrameworkLibrary& part) {
                return sys::starts_with(part.family, "cuDNN") && same_release(*report.cudnn, part.version);
            });
        if (!predicted)
            differences.push_back(fmt::format("it reports cuDNN {}, predicted {} ({})", *report.cudnn, cudnn->version,
                                              cudnn->object.resolution.path));
    }
    if (!report.arch_list.empty() && framework.gpu_code) {
        std::vector<std::string> generic;
        for (const GpuArch& arch : framework.gpu_code->targets.sass)
            if (arch.variant == ArchVariant::generic) generic.push_back(arch.sass_name());
        std::vector<std::string> said;
        for (const std::string& arch : report.arch_list)
            if (sys::starts_with(arch, "sm_")) said.push_back(arch);
        std::sort(generic.begin(), generic.end());
        std::sort(said.begin(), said.end());
        if (generic != said)
            differences.push_back(
                fmt::format("torch.cuda.get_arch_list() is [{}], its libtorch_cuda.so carries SASS [{}]",
                            fmt::join(said, " "), fmt::join(generic, " ")));
    }
    for (const std::string& path : report.mapped) {
        const LibraryFamily* family = family_of_file(sys::file_name_of(path));
        if (family == nullptr) continue;
        const FrameworkLibrary* predicted = framework.library(family->name);
        if (predicted == nullptr) continue;  // loaded lazily by a path the model does not follow
        if (sys::real_path(predicted->object.resolution.path) != path)
            differences.push_back(fmt::format("it mapped {} where {} was predicted ({})", path,
                                              predicted->object.resolution.path, predicted->object.resolution.rule));
    }
    if (!differences.empty()) result.evidence(subject + " differs", fmt::format("{}", fmt::join(differences, "; ")));
    if (!differences.empty())
        add(Code::framework_prediction_mismatch,
            fmt::format("{} did not do what its files predicted ({} difference{})", name, differences.size(),
                        differences.size() == 1 ? "" : "s"),
            "Trust the framework's own report; send `cudacheck --level full -o report.json` to the cudacheck "
            "developers, it is a bug in "
            "the prediction.");
}

namespace {

struct Planned {
    std::string subject;
    const FrameworkFacts* framework = nullptr;
    std::string interpreter;
};

}  // namespace

FrameworkRunOutcome run_framework_child(const std::vector<std::string>& argv, std::chrono::milliseconds limit) {
    // As sys::run_command runs a child (its own process group, no descriptor but stdin, stdout and
    // stderr, a deadline over its whole life, the group killed at the end), but its output is read
    // to the end through FrameworkOutput rather than cut at 1 MiB: a framework that
    // prints megabytes of warnings before its report line still reports.
    const auto start = std::chrono::steady_clock::now();
    FrameworkRunOutcome outcome;
    const auto finish = [&](const std::string& failure) {
        outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        outcome.output_tail = failure;
        return outcome;
    };
    std::optional<sys::Pipe> output = sys::Pipe::open();
    if (!output) return finish(std::strerror(errno));
    const sys::SpawnRequest request{.argv = argv,
                                    .fds = {sys::ChildFd::open("/dev/null", O_RDONLY, 0),
                                            sys::ChildFd::copy(output->write.get(), 1),
                                            sys::ChildFd::copy(output->write.get(), 2)},
                                    .own_process_group = true,
                                    .default_signals = true};
    std::string command;
    for (const std::string& argument : argv)
        command += (command.empty() ? "" : " ") + sys::printable(argument.substr(0, 200));
    const activity::Running running(command);
    const Expected<pid_t> pid = sys::spawn(request);
    output->write.reset();
    if (!pid)
        return finish(pid.error().code == EAGAIN
                          ? fmt::format("{} ({})", pid.error().message, sys::process_limit_words())
                          : pid.error().message);
    outcome.started = true;
    const int fd = output->read.get();
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    const sys::FileDescriptor ended = sys::open_end_descriptor(*pid);
    const auto deadline = start + limit;
    FrameworkOutput streamed;
    bool end_of_file = false;
    bool over_limit = false;
    // What is there now, up to `budget` bytes: a writer that never pauses cannot hold the loop
    // past the deadline.
    const auto read_some = [&](std::size_t budget) {
        char buffer[16384];  // small: std::async threads get the stack size of RLIMIT_STACK
        while (!end_of_file && !over_limit && budget > 0) {
            const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, budget));
            if (n < 0 && errno == EINTR) continue;
            if (n < 0) return;  // EAGAIN: nothing more for now
            if (n == 0) end_of_file = true;
            over_limit = !streamed.add(std::string_view(buffer, static_cast<std::size_t>(n)));
            budget -= static_cast<std::size_t>(n);
        }
    };
    // Until the child has ended and its output is read (a grandchild holding the pipe does not
    // keep a finished child waiting: what is in the pipe when the child ends is read below).
    while (!over_limit && !sys::has_ended(*pid)) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            outcome.timed_out = true;
            break;
        }
        pollfd fds[2] = {{end_of_file ? -1 : fd, POLLIN, 0}, {ended.get(), POLLIN, 0}};
        const long long wait =
            ended.get() >= 0 ? left.count() : std::min<long long>(left.count(), sys::ended_poll_interval_ms);
        const int ready = ::poll(fds, 2, static_cast<int>(std::min<long long>(wait, 1000)));
        if (ready < 0 && errno != EINTR) break;
        if (!end_of_file && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0) read_some(std::size_t{4} << 20);
    }
    ::kill(-*pid, SIGKILL);
    read_some(FrameworkOutput::output_limit);  // the rest in the pipe: the report line is printed last
    output->read.reset();
    const int status = sys::wait_for(*pid);
    if (WIFEXITED(status)) outcome.exit_status = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) outcome.exit_status = 128 + WTERMSIG(status);
    streamed.finish();
    outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    outcome.output_bytes = streamed.bytes();
    if (!outcome.timed_out && !streamed.report_line().empty()) {
        Expected<FrameworkSelfReport> report = parse_self_report(streamed.report_line());
        if (report) outcome.report = std::move(*report);
        else
            outcome.report_error =
                streamed.report_line().size() > FrameworkOutput::report_line_limit ||
                        streamed.report_line().ends_with("(cut)")
                    ? fmt::format("its report line is longer than {} MiB", FrameworkOutput::report_line_limit >> 20)
                    : fmt::format("its report line cannot be read: {}", report.error().message);
    }
    if (!outcome.report) {
        outcome.output_tail = tail_lines(streamed.tail(), 3);
        if (over_limit)
            outcome.output_tail =
                fmt::format("it printed more than {} MiB without a report line, and was stopped there; last lines: {}",
                            FrameworkOutput::output_limit >> 20, outcome.output_tail);
    }
    return outcome;
}

namespace {

FrameworkRunOutcome run_one(const Planned& planned, std::chrono::milliseconds limit) {
    return run_framework_child({planned.interpreter, "-c", framework_probe_script(planned.framework->build.framework)},
                               limit);
}

}  // namespace

std::unique_ptr<Check> make_frameworks_run_check() {
    return std::make_unique<FunctionCheck>(
        CheckInfo{.id = "frameworks.run",
                  .title = "Python frameworks on the GPU",
                  .description = "Runs each CUDA framework's own smallest GPU operation in its interpreter and "
                                 "compares what it reports with the prediction",
                  .min_level = Level::full,
                  .raises = {Code::framework_run_failed, Code::framework_prediction_mismatch},
                  .answers = "at `--level full`: each PyTorch, JAX and CuPy with a CUDA build runs its own smallest "
                             "GPU work in its environment's "
                             "interpreter (a matmul and a cuDNN convolution; a jitted reduction; a reduction and an "
                             "NVRTC kernel), checked against "
                             "the CPU, and what it says of itself (CUDA and cuDNN versions, devices, the libraries "
                             "mapped into its process) is "
                             "compared with what frameworks.builds predicted"},
        [](CheckContext& context, ResultBuilder& result) {
            const PythonFacts& python = context.probes.python();
            std::vector<Planned> planned;
            for (const EnvironmentFacts& environment : python.environments)
                for (const FrameworkFacts& framework : environment.frameworks)
                    if (framework.build.accelerator == Accelerator::cuda &&
                        !framework_probe_script(framework.build.framework).empty() &&
                        !environment.environment.interpreter.empty())
                        planned.push_back({framework_subject(environment, framework), &framework,
                                           environment.environment.interpreter});
            if (planned.empty()) {
                result.skip("no PyTorch, JAX or CuPy with a CUDA build in an environment with an interpreter");
                return;
            }
            // The frameworks' GPU work runs in their own processes, which the device locks of
            // cudacheck's checks do not reach: this check holds every GPU's shared lock while they
            // run, so that no timed section (a burn-in, a GEMM rate) runs beside them. Seen on the
            // H200 before: a gpu.memtest pattern at 86 GB/s (others 2800) while PyTorch's matmul ran.
            std::optional<gpu::DevicesWork> beside_timed_work;
            if (const std::optional<int> count = context.probes.initialised_driver().device_count;
                count && *count > 0) {
                std::vector<int> every_gpu(static_cast<std::size_t>(*count));
                std::iota(every_gpu.begin(), every_gpu.end(), 0);
                beside_timed_work.emplace(std::move(every_gpu));
            }
            // Side by side: `import torch` alone takes ~4 s; all together stay within the check's limit.
            std::vector<FrameworkRunOutcome> outcomes;
            {
                const trace::Span span("framework processes on the GPU");
                std::vector<std::future<FrameworkRunOutcome>> runs;
                for (const Planned& one : planned)
                    runs.push_back(std::async(std::launch::async, run_one, std::cref(one), std::chrono::seconds(90)));
                for (std::future<FrameworkRunOutcome>& run : runs) outcomes.push_back(run.get());
            }
            beside_timed_work.reset();
            std::vector<std::string> proven;
            std::vector<std::string> proven_names;  // the headline's short form
            for (std::size_t i = 0; i < planned.size(); ++i) {
                const FrameworkRunOutcome& outcome = outcomes[i];
                judge_framework_run(planned[i].subject, *planned[i].framework, outcome, result);
                if (outcome.report && outcome.report->ok)
                    proven.push_back(fmt::format("{} ({}, {:.1f} s)", planned[i].framework->build.framework,
                                                 fmt::join(outcome.report->checks, ", "), outcome.seconds));
                if (outcome.report && outcome.report->ok)
                    proven_names.push_back(
                        fmt::format("{} ({:.1f} s)", planned[i].framework->build.framework, outcome.seconds));
            }
            if (!proven.empty()) result.evidence("ran", fmt::format("{}", fmt::join(proven, "; ")));
            result.summary(proven.empty()
                               ? std::string("no framework passed its own GPU test")
                               : "ran on the GPU: " + sys::first_items(proven_names, sys::max_headline - 16));
        });
}

const CheckRegistration frameworks_run_registration{760, make_frameworks_run_check};

}  // namespace cudacheck
