// NVIDIA's Xid catalog and the NVSwitch SXid list as tables: what an "NVRM: Xid (PCI:…): N" or
// "nvidia-nvswitchN: SXid (PCI:…): N" kernel-log line means and what NVIDIA says to do about it.
// Knowledge only: reading and parsing the kernel log is the probe's, the finding codes the check's.
//
// Sources (read 2026-12):
// - Xids: "Analyzing Xid Errors with the Xid Catalog" (Ampere and newer GPUs),
//   https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, and its spreadsheet
//   https://docs.nvidia.com/deploy/xid-errors/Xid-Catalog.xlsx (sheet "Xids": Code, Mnemonic,
//   Description, Resolution Bucket (Immediate Action), Resolution Bucket (Investigatory Action),
//   Xid 154 linkage, Trigger Conditions), Xids 1 to 172. The same sheet as generated code, for a
//   cross-check: leptonai/gpud components/accelerator/nvidia/xid/catalog_generated.go.
// - The pre-Ampere "Failure" texts: "Xid Errors" for older GPUs,
//   https://docs.nvidia.com/deploy/xid-errors/archive/index.html (section 3, Xid Error Listing).
// - SXids: NVIDIA Fabric Manager User Guide, "Runtime NVSwitch Errors" (tables "Non-Fatal NVSwitch
//   SXid Errors", "Fatal NVSwitch SXid Errors", "Always Fatal NVSwitch SXid Errors", "Other Notable
//   NVSwitch SXid Errors"), https://docs.nvidia.com/hgx-platforms/fabric-manager-user-guide/index.html
//   (document version 2.3, March 2025).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace cudacheck {

// NVIDIA's resolution buckets ("Guidance Class" in the catalog's "Fault Resolution Buckets" sheet),
// to_string() spells each as the catalog does ("RESTART_APP", "CHECK_APP/CUDA").
enum class XidBucket : std::uint8_t {
    unknown,            // the catalog names none (Xids 162-172; the investigatory action of unused Xids)
    ignore,             // IGNORE: no action required
    restart_app,        // RESTART_APP: restart the application; no GPU reset or reboot needed
    reset_gpu,          // RESET_GPU
    restart_bm,         // RESTART_BM: restart the bare-metal machine
    restart_vm,         // RESTART_VM: restart the VM that owns the GPU
    contact_support,    // CONTACT_SUPPORT
    check_mechanicals,  // CHECK_MECHANICALS: check the device's seating and connections
    update_sw,          // UPDATE_SWFW: update the driver and firmware
    check_uvm,          // CHECK_UVM: with UVM or vGPU in use RESET_GPU, otherwise IGNORE
    workflow_xid_13,    // WORKFLOW_XID_13: repeated on one GPC/TPC: run diagnostics; else CHECK_APP/CUDA
    workflow_xid_31,    // WORKFLOW_XID_31: repeated MMU faults on one GPU: run diagnostics; else the app
    workflow_xid_45,    // WORKFLOW_XID_45: alone, restart Fabric Manager; after another Xid, follow that one
    workflow_xid_48,    // WORKFLOW_XID_48: alone RESET_GPU; with Xid 63 or 64 drain and reset
    workflow_nvlink,    // WORKFLOW_NVLINK_ERR: decode the Xid 74 registers
    workflow_nvlink5,   // WORKFLOW_NVLINK5_ERR: decode Xids 144-150 by unit and error status
    xid_154,            // XID_154: follow the recovery action the Xid 154 line names
    xid_154_eval,       // XID_154_EVAL: with an Xid 154 take its action, otherwise RESTART_APP
    xid_137_flow,       // XID_137_FLOW: an illegal NVLink peer access, debug the application
    check_app_cuda,     // CHECK_APP/CUDA: likely an application passing bad data to the GPU
    investigate_sw,     // INVESTIGATE_SW: user or NVIDIA software to investigate
    investigate_sw_user,  // INVESTIGATE_SW_USER: software or user initiated, if unexpected
    investigate_link_si,  // INVESTIGATE_LINK_SI: NVLink signal integrity
    ignore_sympathetic,   // IGNORE (sympathetic): follows another error; resolve that one first
    sympathetic_report_solo,  // SYMPATHETIC_REPORT_SOLO: as above; report it when seen alone
    informational,      // "N/A Informational only regarding another Xid" (Xid 154's investigatory)
};

// "RESTART_APP", "CHECK_APP/CUDA", "IGNORE (sympathetic)", "N/A"; "UNKNOWN" for XidBucket::unknown.
[[nodiscard]] std::string_view to_string(XidBucket bucket);

// One row of the catalog.
struct XidInfo {
    int xid;
    std::string_view mnemonic;     // "ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT"
    std::string_view description;  // "GPU memory page fault"; "Unused" where deprecated or pre-Ampere only
    XidBucket immediate;           // the action that recovers the machine now
    XidBucket investigatory;       // the action when it recurs or is unexpected
    // The catalog's trigger conditions name the application as the usual cause: 13 ("general user
    // application faults"), 31 and 137 ("Typically these are application-level bugs"), 43 ("a user
    // application hits a software induced fault ... The GPU remains in a healthy state").
    bool application_fault = false;
    // The driver release from which the catalog says the Xid also raises an Xid 154 naming the
    // recovery action ("Xid 154 linkage": "CUDA 12.7; GPU driver R565" gives "R565"); "" when none.
    std::string_view xid154_since = {};
    // The older-GPU page's "Failure" text where the catalog says "Unused" ("Display Engine error"
    // for 56); "" otherwise.
    std::string_view older_description = {};
};

// The row for an Xid; nullptr when the catalog has none (an Xid newer than this table, or 0).
[[nodiscard]] const XidInfo* find_xid(int xid);
// Every row, sorted by Xid, no duplicates.
[[nodiscard]] std::span<const XidInfo> xid_catalog();

// One NVSwitch SXid of the Fabric Manager guide's tables. The kernel-log line itself says
// "Fatal" or "Non-fatal"; the table is for its name and for lines that do not.
struct SxidInfo {
    int sxid;
    std::string_view name;  // the guide's error string: "ingress invalid ACL"
    bool fatal;             // in the guide's fatal or always-fatal table (10003: "fatal to the fabric")
    // The guide's recovery as a bucket. Its fatal table speaks of shutting down the guest VM that
    // uses the port; on bare metal that is a reset of the GPUs behind the switch (RESET_GPU, as
    // its 20034 entry says for H100). Always fatal: "The host needs to be restarted" (RESTART_BM).
    XidBucket immediate;
    bool always_fatal = false;  // "always fatal to the entire fabric/system"
};

// The row for an SXid; nullptr when the guide lists none.
[[nodiscard]] const SxidInfo* find_sxid(int sxid);
// Every row, sorted by SXid, no duplicates.
[[nodiscard]] std::span<const SxidInfo> sxid_catalog();

}  // namespace cudacheck
