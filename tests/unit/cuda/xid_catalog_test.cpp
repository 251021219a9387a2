// NVIDIA's Xid catalog and the Fabric Manager guide's SXids (cuda/xid_catalog.cpp): rows checked
// against docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html and the guide's tables.
#include "cuda/xid_catalog.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace cudacheck {
namespace {

const XidInfo& row(int xid) {
    const XidInfo* info = find_xid(xid);
    EXPECT_NE(info, nullptr) << "Xid " << xid;
    static const XidInfo missing{.xid = 0,
                                 .mnemonic = "",
                                 .description = "",
                                 .immediate = XidBucket::unknown,
                                 .investigatory = XidBucket::unknown};
    return info != nullptr ? *info : missing;
}

TEST(XidCatalog, xid_31_is_the_mmu_fault_an_application_restart_answers) {
    const XidInfo& xid = row(31);
    EXPECT_EQ(xid.mnemonic, "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT");
    EXPECT_EQ(xid.description, "GPU memory page fault");
    EXPECT_EQ(to_string(xid.immediate), "RESTART_APP");
    EXPECT_EQ(to_string(xid.investigatory), "WORKFLOW_XID_31");
    EXPECT_TRUE(xid.application_fault);
}

TEST(XidCatalog, xid_79_needs_a_bare_metal_restart) {
    const XidInfo& xid = row(79);
    EXPECT_EQ(xid.mnemonic, "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS");
    EXPECT_EQ(xid.immediate, XidBucket::restart_bm);
    EXPECT_EQ(to_string(xid.immediate), "RESTART_BM");
    EXPECT_EQ(xid.investigatory, XidBucket::contact_support);
    EXPECT_EQ(xid.xid154_since, "R565");
    EXPECT_FALSE(xid.application_fault);
}

TEST(XidCatalog, xid_48_follows_its_own_workflow_in_both_columns) {
    const XidInfo& xid = row(48);
    EXPECT_EQ(xid.mnemonic, "ROBUST_CHANNEL_GPU_ECC_DBE");
    EXPECT_EQ(xid.description, "Double Bit ECC Error");
    EXPECT_EQ(to_string(xid.immediate), "WORKFLOW_XID_48");
    EXPECT_EQ(to_string(xid.investigatory), "WORKFLOW_XID_48");
}

TEST(XidCatalog, the_gpu_faults_the_catalog_resets_or_restarts) {
    EXPECT_EQ(row(8).immediate, XidBucket::restart_app);  // GPU stopped processing
    EXPECT_EQ(row(46).immediate, XidBucket::reset_gpu);
    EXPECT_EQ(row(62).immediate, XidBucket::reset_gpu);
    EXPECT_EQ(row(63).immediate, XidBucket::ignore);  // a row remapping event
    EXPECT_EQ(row(63).investigatory, XidBucket::ignore);
    EXPECT_EQ(row(64).immediate, XidBucket::reset_gpu);
    EXPECT_EQ(row(94).immediate, XidBucket::restart_app);  // contained to one application
    EXPECT_EQ(to_string(row(94).investigatory), "IGNORE (sympathetic)");
    EXPECT_EQ(row(95).immediate, XidBucket::reset_gpu);
    EXPECT_EQ(row(109).immediate, XidBucket::reset_gpu);
    EXPECT_EQ(row(109).xid154_since, "R570");
    for (int gsp : {119, 120}) {
        EXPECT_EQ(row(gsp).immediate, XidBucket::reset_gpu) << gsp;
        EXPECT_EQ(row(gsp).investigatory, XidBucket::investigate_sw) << gsp;
    }
    EXPECT_EQ(row(119).mnemonic, "GSP_RPC_TIMEOUT");
    EXPECT_EQ(row(140).mnemonic, "UNRECOVERABLE_ECC_ERROR_ESCAPE");
    EXPECT_EQ(row(143).xid154_since, "R575");
    EXPECT_EQ(row(151).immediate, XidBucket::restart_vm);
    EXPECT_EQ(row(54).immediate, XidBucket::check_mechanicals);
    EXPECT_EQ(to_string(row(78).immediate), "UPDATE_SWFW");
    EXPECT_EQ(row(159).immediate, XidBucket::check_uvm);
    EXPECT_EQ(to_string(row(74).immediate), "WORKFLOW_NVLINK_ERR");
    for (int nvlink = 144; nvlink <= 150; ++nvlink) {
        EXPECT_EQ(to_string(row(nvlink).immediate), "WORKFLOW_NVLINK5_ERR") << nvlink;
        EXPECT_EQ(row(nvlink).mnemonic.substr(0, 7), "NVLINK_") << nvlink;
    }
}

TEST(XidCatalog, xid_154_points_at_the_action_its_line_names) {
    const XidInfo& xid = row(154);
    EXPECT_EQ(xid.mnemonic, "GPU_RECOVERY_ACTION_CHANGED");
    EXPECT_EQ(to_string(xid.immediate), "XID_154");
    EXPECT_EQ(to_string(xid.investigatory), "N/A");
}

TEST(XidCatalog, xid_45_defers_to_the_xid_that_caused_it) {
    const XidInfo& xid = row(45);
    EXPECT_EQ(xid.mnemonic, "ROBUST_CHANNEL_PREEMPTIVE_REMOVAL");
    EXPECT_EQ(xid.immediate, XidBucket::workflow_xid_45);
    EXPECT_FALSE(xid.application_fault) << "a teardown after Ctrl-C or another Xid, not the application's bug";
}

TEST(XidCatalog, application_faults_are_the_ones_the_catalog_blames_on_the_application) {
    std::vector<int> faults;
    for (const XidInfo& xid : xid_catalog())
        if (xid.application_fault) faults.push_back(xid.xid);
    EXPECT_EQ(faults, (std::vector<int>{13, 31, 43, 137}));
    for (int xid : faults) {
        // No GPU action for an application's bug: the catalog's immediate action restarts the
        // application or does nothing.
        const XidBucket immediate = row(xid).immediate;
        EXPECT_TRUE(immediate == XidBucket::restart_app || immediate == XidBucket::ignore) << xid;
    }
    EXPECT_EQ(row(43).immediate, XidBucket::ignore);
    EXPECT_EQ(row(13).investigatory, XidBucket::workflow_xid_13);
    EXPECT_EQ(row(137).investigatory, XidBucket::xid_137_flow);
}

TEST(XidCatalog, unknown_xids_have_no_row) {
    for (int xid : {0, -1, 173, 999, 22013}) EXPECT_EQ(find_xid(xid), nullptr) << xid;
}

TEST(XidCatalog, the_table_holds_xids_1_to_172_in_order) {
    const auto catalog = xid_catalog();
    ASSERT_EQ(catalog.size(), 172u);
    for (std::size_t i = 0; i < catalog.size(); ++i) {
        EXPECT_EQ(catalog[i].xid, static_cast<int>(i) + 1);
        EXPECT_EQ(find_xid(catalog[i].xid), &catalog[i]);
    }
}

TEST(XidCatalog, every_row_has_a_mnemonic_in_the_catalogs_spelling_and_a_description) {
    for (const XidInfo& xid : xid_catalog()) {
        EXPECT_FALSE(xid.mnemonic.empty()) << xid.xid;
        EXPECT_FALSE(xid.description.empty()) << xid.xid;
        for (char c : xid.mnemonic)
            EXPECT_TRUE((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == ' ' || c == '/')
                << xid.xid << ": " << xid.mnemonic;
        if (xid.xid != 13) {
            EXPECT_EQ(xid.mnemonic.find(' '), std::string_view::npos) << xid.xid;
        }
    }
}

TEST(XidCatalog, only_xids_162_to_172_lack_an_immediate_action) {
    std::vector<int> without;
    for (const XidInfo& xid : xid_catalog())
        if (xid.immediate == XidBucket::unknown) without.push_back(xid.xid);
    std::vector<int> expected;
    for (int xid = 162; xid <= 172; ++xid) expected.push_back(xid);
    EXPECT_EQ(without, expected);
}

TEST(XidCatalog, older_descriptions_fill_only_the_rows_the_catalog_calls_unused) {
    int filled = 0;
    for (const XidInfo& xid : xid_catalog()) {
        if (xid.older_description.empty()) continue;
        ++filled;
        EXPECT_EQ(xid.description, "Unused") << xid.xid;
    }
    EXPECT_GT(filled, 30);
    EXPECT_EQ(row(56).older_description, "Display Engine error");
    EXPECT_EQ(row(61).older_description, "Internal micro-controller breakpoint/warning (newer drivers)");
    EXPECT_EQ(row(79).older_description, "") << "the catalog's own text stands";
}

TEST(XidCatalog, every_bucket_has_its_own_catalog_spelling) {
    std::set<std::string_view> seen;
    for (int value = 0; value <= static_cast<int>(XidBucket::informational); ++value) {
        const std::string_view text = to_string(static_cast<XidBucket>(value));
        EXPECT_FALSE(text.empty()) << value;
        EXPECT_TRUE(seen.insert(text).second) << "duplicate spelling " << text;
    }
    EXPECT_EQ(to_string(XidBucket::check_app_cuda), "CHECK_APP/CUDA");
    EXPECT_EQ(to_string(XidBucket::xid_154_eval), "XID_154_EVAL");
    EXPECT_EQ(to_string(XidBucket::unknown), "UNKNOWN");
}

TEST(SxidCatalog, non_fatal_fatal_and_always_fatal_as_the_fabric_manager_guide_lists_them) {
    const SxidInfo* acl = find_sxid(11004);
    ASSERT_NE(acl, nullptr);
    EXPECT_EQ(acl->name, "ingress invalid ACL");
    EXPECT_FALSE(acl->fatal);
    EXPECT_EQ(acl->immediate, XidBucket::restart_vm);

    const SxidInfo* ltssm = find_sxid(20034);
    ASSERT_NE(ltssm, nullptr);
    EXPECT_EQ(ltssm->name, "LTSSM Fault Up");
    EXPECT_TRUE(ltssm->fatal);
    EXPECT_FALSE(ltssm->always_fatal);
    EXPECT_EQ(ltssm->immediate, XidBucket::reset_gpu);

    const SxidInfo* sequence = find_sxid(12020);
    ASSERT_NE(sequence, nullptr);
    EXPECT_TRUE(sequence->always_fatal);
    EXPECT_EQ(sequence->immediate, XidBucket::restart_bm);

    ASSERT_NE(find_sxid(22013), nullptr);
    EXPECT_EQ(find_sxid(22013)->immediate, XidBucket::ignore) << "\"can be safely ignored\"";
    ASSERT_NE(find_sxid(12028), nullptr);
    EXPECT_FALSE(find_sxid(12028)->fatal);
    ASSERT_NE(find_sxid(10003), nullptr);
    EXPECT_TRUE(find_sxid(10003)->fatal) << "never expected; fatal to the fabric";
    ASSERT_NE(find_sxid(20012), nullptr);
    EXPECT_EQ(find_sxid(20012)->immediate, XidBucket::check_mechanicals);
}

TEST(SxidCatalog, unknown_sxids_have_no_row) {
    for (int sxid : {0, 31, 11000, 20009, 99999}) EXPECT_EQ(find_sxid(sxid), nullptr) << sxid;
}

TEST(SxidCatalog, the_table_is_sorted_unique_and_consistent) {
    const auto catalog = sxid_catalog();
    EXPECT_EQ(catalog.size(), 92u);
    int previous = 0;
    int fatal = 0;
    int always = 0;
    for (const SxidInfo& sxid : catalog) {
        EXPECT_GT(sxid.sxid, previous);
        previous = sxid.sxid;
        EXPECT_FALSE(sxid.name.empty()) << sxid.sxid;
        EXPECT_EQ(find_sxid(sxid.sxid), &sxid);
        if (sxid.always_fatal) {
            ++always;
            EXPECT_TRUE(sxid.fatal) << sxid.sxid;
            EXPECT_EQ(sxid.immediate, XidBucket::restart_bm) << sxid.sxid;
        }
        if (sxid.fatal) {
            ++fatal;
            EXPECT_TRUE(sxid.immediate == XidBucket::reset_gpu || sxid.immediate == XidBucket::restart_bm) << sxid.sxid;
        }
    }
    EXPECT_EQ(always, 20);  // the guide's "Always Fatal" table
    EXPECT_EQ(fatal, 20 + 42 + 1);  // plus its "Fatal" table (42) and 10003
}

}  // namespace
}  // namespace cudacheck
