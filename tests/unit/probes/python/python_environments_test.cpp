// Finding Python environments without running Python (probes/python/python_environments.hpp): the GPU
// machine's venv from its real pyvenv.cfg, the system Python behind it, conda, pyenv, pipx,
// --python, a dangling interpreter and a garbage pyvenv.cfg.
#include "probes/python/python_environments.hpp"
#include "support/fixtures.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cudacheck {
namespace {

using test::ScratchTree;

// The GPU machine's layout: /opt/torch/.venv (its real pyvenv.cfg; bin/python3 links to the system
// /usr/bin/python3.12, as `python -m venv` and uv make it) first on PATH, then /usr/bin.
struct GpuMachine {
    ScratchTree tree;
    std::string venv = tree.path() + "/opt/torch/.venv";
    std::string usr = tree.path() + "/usr";
    GpuMachine() {
        tree.write("opt/torch/.venv/pyvenv.cfg", test::fixture("frameworks/h200-venv/pyvenv.cfg"));
        tree.write("usr/bin/python3.12", "#!ELF stand-in\n", 0755);
        tree.symlink("python3.12", "usr/bin/python3");
        tree.symlink(usr + "/bin/python3.12", "opt/torch/.venv/bin/python3");
        tree.make_dir("opt/torch/.venv/lib/python3.12/site-packages/torch");
        tree.make_dir("usr/lib/python3/dist-packages");
        tree.make_dir("usr/lib/python3.12/dist-packages");
    }
    Environment environment() const {
        return Environment({{"PATH", venv + "/bin:" + usr + "/bin"}, {"HOME", tree.path() + "/home/u"}});
    }
};

TEST(PyvenvConfig, reads_the_gpu_machines_real_file) {
    const PyvenvConfig config = parse_pyvenv_cfg(test::fixture("frameworks/h200-venv/pyvenv.cfg"));
    EXPECT_EQ(config.home, "/usr/bin");
    EXPECT_EQ(config.version, "3.12.3");  // uv writes version_info
    EXPECT_FALSE(config.include_system_site_packages);
    EXPECT_EQ(config.malformed_lines, 0u);
}

TEST(PyvenvConfig, takes_the_venv_modules_keys_and_counts_garbage_lines) {
    const PyvenvConfig config = parse_pyvenv_cfg(
        "home = /opt/python/bin\r\nversion = 3.11.9\nInclude-System-Site-Packages = True\n\x7f\x01garbage\n# "
        "comment\n");
    EXPECT_EQ(config.home, "/opt/python/bin");
    EXPECT_EQ(config.version, "3.11.9");
    EXPECT_TRUE(config.include_system_site_packages);
    EXPECT_EQ(config.malformed_lines, 1u);
}

TEST(PythonEnvironments, finds_the_venv_that_python3_on_path_runs_and_the_system_python_behind_it) {
    const GpuMachine machine;
    const PythonEnvironments found = find_python_environments(machine.environment(), {}, machine.tree.path());
    ASSERT_EQ(found.environments.size(), 2u);
    const PythonEnvironment& venv = found.environments[0];
    EXPECT_EQ(venv.kind, PythonKind::venv);
    EXPECT_EQ(venv.prefix, machine.venv);
    EXPECT_EQ(venv.python_version, "3.12.3");
    EXPECT_EQ(venv.base_prefix, "/usr");  // pyvenv.cfg's home, as written
    EXPECT_EQ(venv.site_packages, (std::vector<std::string>{machine.venv + "/lib/python3.12/site-packages"}));
    EXPECT_EQ(venv.found_by, (std::vector<std::string>{"python3 on PATH"}));
    EXPECT_EQ(found.bare_python3, 0u);
    const PythonEnvironment& system = found.environments[1];
    EXPECT_EQ(system.kind, PythonKind::system);
    EXPECT_EQ(system.prefix, machine.usr);
    EXPECT_EQ(system.python_version, "3.12");
    EXPECT_EQ(system.site_packages, (std::vector<std::string>{machine.usr + "/lib/python3/dist-packages",
                                                              machine.usr + "/lib/python3.12/dist-packages"}));
    EXPECT_TRUE(venv.problem.empty() && system.problem.empty());
}

TEST(PythonEnvironments, names_every_way_an_environment_was_found_once) {
    const GpuMachine machine;
    Environment environment = machine.environment();
    environment.set("VIRTUAL_ENV", machine.venv);
    const std::vector<std::string> extra{machine.venv + "/bin/python3"};
    const PythonEnvironments found = find_python_environments(environment, extra, machine.tree.path());
    ASSERT_EQ(found.environments.size(), 2u);
    EXPECT_EQ(found.environments[0].found_by, (std::vector<std::string>{"--python " + machine.venv + "/bin/python3",
                                                                        "python3 on PATH", "VIRTUAL_ENV"}));
}

TEST(PythonEnvironments, adds_the_base_site_packages_when_the_venv_includes_them) {
    GpuMachine machine;
    machine.tree.write("opt/torch/.venv/pyvenv.cfg",
                       "home = " + machine.usr + "/bin\nversion = 3.12.3\ninclude-system-site-packages = true\n");
    const PythonEnvironments found = find_python_environments(machine.environment(), {}, machine.tree.path());
    ASSERT_FALSE(found.environments.empty());
    EXPECT_EQ(found.environments[0].site_packages,
              (std::vector<std::string>{machine.venv + "/lib/python3.12/site-packages",
                                        machine.usr + "/lib/python3/dist-packages",
                                        machine.usr + "/lib/python3.12/dist-packages"}));
}

TEST(PythonEnvironments, finds_conda_environments_from_conda_prefix_and_environments_txt) {
    ScratchTree tree;
    tree.make_dir("home/u/miniconda3/conda-meta");
    tree.make_dir("home/u/miniconda3/lib/python3.13/site-packages");
    tree.make_dir("home/u/miniconda3/envs/jax/conda-meta");
    tree.make_dir("home/u/miniconda3/envs/jax/lib/python3.11/site-packages");
    tree.make_dir("elsewhere/torch/conda-meta");
    tree.make_dir("elsewhere/torch/lib/python3.10/site-packages");
    tree.write("home/u/.conda/environments.txt", tree.path() + "/elsewhere/torch\n\n/does/not/exist\n");
    const Environment environment({{"HOME", tree.path() + "/home/u"},
                                   {"CONDA_PREFIX", tree.path() + "/home/u/miniconda3/envs/jax"},
                                   {"PATH", ""}});
    const PythonEnvironments found = find_python_environments(environment, {}, tree.path());
    ASSERT_EQ(found.environments.size(), 3u);
    EXPECT_EQ(found.environments[0].found_by.front(), "CONDA_PREFIX");
    EXPECT_EQ(found.environments[0].kind, PythonKind::conda);
    EXPECT_EQ(found.environments[0].python_version, "3.11");  // from its lib/python3.11
    EXPECT_EQ(found.environments[1].prefix, tree.path() + "/elsewhere/torch");
    EXPECT_EQ(found.environments[2].prefix, tree.path() + "/home/u/miniconda3");
    EXPECT_EQ(found.environments[2].found_by, (std::vector<std::string>{"conda installation"}));
    EXPECT_FALSE(found.bare_python3);
}

TEST(PythonEnvironments, follows_a_pyenv_shim_to_the_version_it_selects) {
    ScratchTree tree;
    tree.write("home/u/.pyenv/shims/python3", "#!/usr/bin/env bash\nexec pyenv exec \"$0\" \"$@\"\n", 0755);
    tree.write("home/u/.pyenv/version", "3.11.9\n");
    tree.write("home/u/.pyenv/versions/3.11.9/bin/python3", "x", 0755);
    tree.make_dir("home/u/.pyenv/versions/3.11.9/lib/python3.11/site-packages");
    Environment environment({{"HOME", tree.path() + "/home/u"}, {"PATH", tree.path() + "/home/u/.pyenv/shims"}});
    PythonEnvironments found = find_python_environments(environment, {}, tree.path());
    ASSERT_EQ(found.environments.size(), 1u);
    EXPECT_EQ(found.environments[0].kind, PythonKind::pyenv);
    EXPECT_EQ(found.environments[0].prefix, tree.path() + "/home/u/.pyenv/versions/3.11.9");
    EXPECT_EQ(found.bare_python3, 0u);
    ASSERT_EQ(found.notes.size(), 1u);
    EXPECT_NE(found.notes[0].find("runs version 3.11.9"), std::string::npos) << found.notes[0];
    // PYENV_VERSION overrides the global file; "system" passes on to the next python3 on PATH.
    environment.set("PYENV_VERSION", "system");
    found = find_python_environments(environment, {}, tree.path());
    EXPECT_TRUE(found.environments.empty());
    EXPECT_FALSE(found.bare_python3);
}

TEST(PythonEnvironments, lists_pipx_venvs) {
    ScratchTree tree;
    tree.write("home/u/.local/share/pipx/venvs/nvitop/pyvenv.cfg", "home = /usr/bin\nversion = 3.12.3\n");
    tree.make_dir("home/u/.local/share/pipx/venvs/nvitop/lib/python3.12/site-packages");
    const PythonEnvironments found =
        find_python_environments(Environment({{"HOME", tree.path() + "/home/u"}}), {}, tree.path());
    ASSERT_EQ(found.environments.size(), 1u);
    EXPECT_EQ(found.environments[0].found_by, (std::vector<std::string>{"pipx"}));
    EXPECT_EQ(found.environments[0].kind, PythonKind::venv);
}

TEST(PythonEnvironments, skips_a_dangling_python3_and_reports_a_missing_python_argument_and_garbage_pyvenv_cfg) {
    ScratchTree tree;
    tree.symlink(tree.path() + "/nowhere/python3.12", "bin/python3");
    ::chmod((tree.path() + "/bin").c_str(), 0755);
    tree.write("garbage/pyvenv.cfg", std::string("\x00\xff\xfe binary\n", 11));
    const std::vector<std::string> extra{tree.path() + "/absent/bin/python3", tree.path() + "/garbage"};
    const PythonEnvironments found =
        find_python_environments(Environment({{"PATH", tree.path() + "/bin"}}), extra, tree.path());
    ASSERT_EQ(found.environments.size(), 2u) << "a dangling python3 is not executable, so PATH finds none";
    EXPECT_NE(found.environments[0].problem.find("does not exist"), std::string::npos) << found.environments[0].problem;
    EXPECT_EQ(found.environments[1].kind, PythonKind::venv);
    EXPECT_TRUE(found.environments[1].site_packages.empty());
    EXPECT_EQ(found.environments[1].python_version, "");
}

}  // namespace
}  // namespace cudacheck
