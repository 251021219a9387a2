// CUDA_VISIBLE_DEVICES as CUDA parses it (probes/visible_devices), and the CUDA view it predicts.
#include "probes/visible_devices.hpp"
#include "report/report.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <vector>

namespace {

using namespace cudacheck;

// ---------------------------------------------------------------------------------------------
// CUDA_VISIBLE_DEVICES

TEST(VisibleDevices, is_not_set_when_variable_unset) {
    const auto spec = parse_cuda_visible_devices(std::nullopt);
    EXPECT_FALSE(spec.set);
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, hides_all_when_empty_string) {
    const auto spec = parse_cuda_visible_devices("");
    EXPECT_TRUE(spec.set);
    EXPECT_EQ(spec.raw, "");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, lists_one_ordinal_when_0) {
    const auto spec = parse_cuda_visible_devices("0");
    EXPECT_TRUE(spec.set);
    EXPECT_EQ(spec.raw, "0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.entries[0].text, "0");
    EXPECT_EQ(spec.invalid_entry, "");
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, keeps_order_when_0_1) {
    const auto spec = parse_cuda_visible_devices("0,1");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.entries[1].ordinal, 1);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, keeps_order_when_1_0) {
    const auto spec = parse_cuda_visible_devices("1,0");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].ordinal, 1);
    EXPECT_EQ(spec.entries[1].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_gpu_uuid_prefix_when_gpu_dash) {
    const auto spec = parse_cuda_visible_devices("GPU-2a36941f");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::gpu_uuid);
    EXPECT_EQ(spec.entries[0].text, "GPU-2a36941f");
    EXPECT_EQ(spec.entries[0].ordinal, -1);
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_mig_identifier_when_gpu_uuid_and_instance_ids) {
    const auto spec = parse_cuda_visible_devices("MIG-GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa/1/0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::mig_uuid);
    EXPECT_EQ(spec.entries[0].text, "MIG-GPU-2a36941f-b41a-b60b-0006-61ebcd2ec0aa/1/0");
    EXPECT_EQ(spec.invalid_entry, "");
}

TEST(VisibleDevices, accepts_mig_uuid_when_mixed_with_ordinal) {
    const auto spec = parse_cuda_visible_devices("MIG-9e3d0c8a-5b1c-5f0e-8a7f-1d2e3f4a5b6c,0");
    ASSERT_EQ(spec.entries.size(), 2U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::mig_uuid);
    EXPECT_EQ(spec.entries[0].text, "MIG-9e3d0c8a-5b1c-5f0e-8a7f-1d2e3f4a5b6c");
    EXPECT_EQ(spec.entries[1].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[1].ordinal, 0);
}

TEST(VisibleDevices, hides_all_when_minus_1) {
    const auto spec = parse_cuda_visible_devices("-1");
    EXPECT_TRUE(spec.set);
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "-1");
    EXPECT_EQ(spec.invalid_reason, "not an ordinal, GPU UUID or MIG identifier");
}

TEST(VisibleDevices, stops_at_empty_entry_when_0_comma_comma_1) {
    const auto spec = parse_cuda_visible_devices("0,,1");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "(empty entry)");
    EXPECT_EQ(spec.invalid_reason, "empty entry between commas");
}

TEST(VisibleDevices, stops_at_invalid_entry_when_0_x_1) {
    const auto spec = parse_cuda_visible_devices("0,x,1");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].kind, VisibleEntryKind::ordinal);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "x");
    EXPECT_EQ(spec.invalid_reason, "not an ordinal, GPU UUID or MIG identifier");
    EXPECT_FALSE(spec.hides_all());
}

TEST(VisibleDevices, stops_at_repeat_when_0_0) {
    const auto spec = parse_cuda_visible_devices("0,0");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 0);
    EXPECT_EQ(spec.invalid_entry, "0");
    EXPECT_EQ(spec.invalid_reason, "repeats an earlier ordinal");
}

TEST(VisibleDevices, stops_at_spaces_when_leading_space) {
    const auto spec = parse_cuda_visible_devices(" 0");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.raw, " 0");
    EXPECT_EQ(spec.invalid_entry, " 0");
    EXPECT_EQ(spec.invalid_reason, "contains spaces");
}

TEST(VisibleDevices, stops_when_gpu_dash_alone) {
    const auto spec = parse_cuda_visible_devices("GPU-");
    EXPECT_TRUE(spec.entries.empty());
    EXPECT_TRUE(spec.hides_all());
    EXPECT_EQ(spec.invalid_entry, "GPU-");
    EXPECT_EQ(spec.invalid_reason, "GPU- needs a UUID or prefix after it");
}

TEST(VisibleDevices, stops_when_mig_dash_alone) {
    const auto spec = parse_cuda_visible_devices("1,MIG-");
    ASSERT_EQ(spec.entries.size(), 1U);
    EXPECT_EQ(spec.entries[0].ordinal, 1);
    EXPECT_EQ(spec.invalid_entry, "MIG-");
    EXPECT_EQ(spec.invalid_reason, "MIG- needs an identifier after it");
}

// NVML's list (bus order) as CUDA would number it, for --level quick.
std::vector<DeviceInfo> nvml_list(std::initializer_list<const char*> names) {
    std::vector<DeviceInfo> devices;
    for (const char* name : names) {
        DeviceInfo device;
        device.ordinal = static_cast<int>(devices.size());
        device.nvml_index = device.ordinal;
        device.name = name;
        device.uuid = fmt::format("GPU-{}{}-0000", device.ordinal, device.ordinal == 1 ? "abc" : "def");
        devices.push_back(device);
    }
    return devices;
}

TEST(PredictCudaView, renumbers_the_listed_gpus_in_the_order_given) {
    const auto view =
        predict_cuda_view(nvml_list({"H200", "H200", "H200"}), parse_cuda_visible_devices("2,GPU-1a"), std::nullopt);
    ASSERT_TRUE(view.certain);
    ASSERT_EQ(view.devices.size(), 2U);
    EXPECT_EQ(view.devices[0].ordinal, 0);
    EXPECT_EQ(view.devices[0].nvml_index, 2);
    EXPECT_EQ(view.devices[1].ordinal, 1);
    EXPECT_EQ(view.devices[1].uuid, "GPU-1abc-0000");
}

TEST(PredictCudaView, keeps_every_gpu_when_the_variable_is_unset_and_none_when_empty) {
    EXPECT_EQ(
        predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices(std::nullopt), std::nullopt).devices.size(),
        2U);
    const auto hidden = predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices(""), std::nullopt);
    EXPECT_TRUE(hidden.certain);
    EXPECT_TRUE(hidden.devices.empty());
}

TEST(PredictCudaView, stops_at_an_ordinal_or_uuid_that_names_no_gpu_or_a_repeat) {
    EXPECT_EQ(
        predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("1,5,0"), std::nullopt).devices.size(), 1U);
    EXPECT_EQ(
        predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("GPU-9,0"), std::nullopt).devices.size(),
        0U);
    // "GPU-" alone would match both: an ambiguous prefix hides what follows, as in CUDA.
    EXPECT_EQ(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("0,GPU-0def,1"), std::nullopt)
                  .devices.size(),
              1U);
}

TEST(PredictCudaView, is_uncertain_for_mixed_models_unless_numbered_by_bus_id_and_for_mig) {
    const auto mixed = predict_cuda_view(nvml_list({"A100", "T4"}), parse_cuda_visible_devices("1"), std::nullopt);
    EXPECT_FALSE(mixed.certain);
    EXPECT_FALSE(mixed.uncertain_reason.empty());
    const auto by_bus = predict_cuda_view(nvml_list({"A100", "T4"}), parse_cuda_visible_devices("1"), "PCI_BUS_ID");
    ASSERT_TRUE(by_bus.certain);
    EXPECT_EQ(by_bus.devices.at(0).name, "T4");
    EXPECT_FALSE(predict_cuda_view(nvml_list({"A", "A"}), parse_cuda_visible_devices("MIG-1"), std::nullopt).certain);
}

}  // namespace
