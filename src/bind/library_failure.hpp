// A call into a library opened at run time returned an error status: one exception type for every
// library, told apart by `Library`, the tag of that library's binding. The tag names the status
// type and what to do about a status:
//   struct Cufft { using Status = cufftResult; static std::string remediation(Status); };
// The message names the call and the status as the library describes it ("cufftPlanMany(C2C,
// n=1000, batch=64) failed: CUFFT_ALLOC_FAILED (2)"); the status stays for the finding's code and
// remediation.
#pragma once

#include <fmt/format.h>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cudacheck {

template <typename Library>
class LibraryFailure : public std::runtime_error {
public:
    using Status = typename Library::Status;
    // "<call> failed: <described>".
    LibraryFailure(Status status, std::string_view call, std::string_view described)
        : std::runtime_error(fmt::format("{} failed: {}", call, described)), status_(status) {}
    [[nodiscard]] Status status() const { return status_; }
    [[nodiscard]] std::string remediation() const { return Library::remediation(status_); }

private:
    Status status_;
};

// "CUFFT_ALLOC_FAILED (2)": how a failure names a status.
[[nodiscard]] inline std::string describe_status(std::string_view name, int value) {
    return fmt::format("{} ({})", name, value);
}

}  // namespace cudacheck
